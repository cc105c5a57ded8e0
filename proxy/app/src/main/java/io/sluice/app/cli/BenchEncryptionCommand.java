package io.sluice.app.cli;

import java.util.List;
import java.util.concurrent.Callable;

import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

import io.sluice.bench.proxy.EncryptionBench;
import io.sluice.cli.UsageException;

/**
 * {@code sluice bench encryption}: one broker, two proxies in their own JVMs (passthrough, and
 * RecordEncryption on every topic with the in-process KMS), the same load through each, alternating, in
 * one run. Reports the throughput ratio and each proxy's CPU per MB of total traffic.
 */
@Command(name = "encryption", description = "A passthrough proxy against a RecordEncryption proxy (in-process KMS by default), the same load"
        + " through each, alternating, in one run: throughput ratio, each proxy's CPU per MB, and the encrypting proxy's KMS calls.")
public final class BenchEncryptionCommand implements Callable<Integer> {

    @Mixin
    LoadOptions load;

    @Option(names = "--latency-seconds", paramLabel = "S", defaultValue = "5", description = "Length of the latency phase (default: ${DEFAULT-VALUE}).")
    int latencySeconds;

    @Option(names = "--kms", paramLabel = "KIND", defaultValue = "inprocess",
            description = "The encrypting proxy's KMS (default: ${DEFAULT-VALUE}): inprocess, vault (VAULT_ADDR and VAULT_TOKEN, else the in-process Vault"
                    + " Transit stand-in) or aws (SLUICE_AWS_KMS_KEY_ID and AWS_REGION, else moto, installed into a Python venv on first use).")
    String kms;

    @Override
    public Integer call() throws Exception {
        if (!List.of("inprocess", "vault", "aws").contains(kms)) {
            throw new UsageException("--kms: '" + kms + "' is not one of inprocess, vault, aws");
        }
        return EncryptionBench.run(LoadSettings.of(load, latencySeconds), Main.class.getName(), kms);
    }
}
