package io.sluice.bridge.client;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.OutputStreamWriter;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

/**
 * Headless Chromium driven through {@code client-js/test/browser/driver.mjs} (playwright-core): open a page, evaluate
 * expressions in it. One browser per test class; each {@link #open} is a fresh tab.
 */
public final class HeadlessBrowser implements AutoCloseable {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final long TIMEOUT_SECONDS = 60;

    private final Process process;
    private final Writer in;
    private final BlockingQueue<String> out = new LinkedBlockingQueue<>();
    private long nextId = 1;

    private HeadlessBrowser(Process process) {
        this.process = process;
        this.in = new OutputStreamWriter(process.getOutputStream(), StandardCharsets.UTF_8);
        Thread reader = new Thread(() -> {
            try (BufferedReader lines = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
                String line;
                while ((line = lines.readLine()) != null) {
                    out.add(line);
                }
            } catch (java.io.IOException e) {
                // the process ended; a waiting call times out with the reason below
            }
        }, "headless-browser-out");
        reader.setDaemon(true);
        reader.start();
    }

    public static HeadlessBrowser launch() throws Exception {
        NodeTools.requireBrowser();
        Process process = new ProcessBuilder("node", "test/browser/driver.mjs").directory(NodeTools.CLIENT_JS.toFile())
                .redirectError(ProcessBuilder.Redirect.INHERIT).start();
        HeadlessBrowser browser = new HeadlessBrowser(process);
        String first = browser.out.poll(TIMEOUT_SECONDS, TimeUnit.SECONDS);
        if (!"\"ready\"".equals(first)) {
            browser.close();
            throw new IllegalStateException("the browser driver did not start (first line: " + first + "); see its stderr above");
        }
        return browser;
    }

    /** Opens the page in a fresh tab and waits until the expression {@code ready} is truthy in it. */
    public void open(String url, String ready) throws Exception {
        command(JSON.createObjectNode().put("goto", url).put("ready", ready));
    }

    /** Evaluates a JavaScript expression in the page, awaiting it if it is a promise; returns its JSON value. */
    public JsonNode eval(String expression) throws Exception {
        return command(JSON.createObjectNode().put("eval", expression));
    }

    private JsonNode command(com.fasterxml.jackson.databind.node.ObjectNode command) throws Exception {
        long id = nextId++;
        command.put("id", id);
        in.write(command.toString() + "\n");
        in.flush();
        String line = out.poll(TIMEOUT_SECONDS, TimeUnit.SECONDS);
        if (line == null) {
            throw new IllegalStateException("no answer from the browser within " + TIMEOUT_SECONDS + " s to " + command);
        }
        JsonNode reply = JSON.readTree(line);
        if (reply.get("id").asLong() != id) {
            throw new IllegalStateException("answer out of order: " + line);
        }
        if (!reply.get("ok").asBoolean()) {
            throw new AssertionError("in the browser: " + reply.get("error").asText() + "\nwhile running " + command);
        }
        return reply.get("value");
    }

    @Override
    public void close() throws Exception {
        in.close();
        if (!process.waitFor(15, TimeUnit.SECONDS)) {
            process.destroyForcibly();
        }
    }
}
