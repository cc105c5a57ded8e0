package io.sluice.testkit.bench;

/**
 * The published benchmark a scenario answers.
 *
 * @param file        the write-up, under ../shared/seeds in the development tree (named in the docs table)
 * @param title       who published it, and the scenario's name there
 * @param differences how a run here differs from the published one: scale, cores, network
 */
public record Seed(String file, String title, String differences) {
}
