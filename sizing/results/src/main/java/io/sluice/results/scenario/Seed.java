package io.sluice.results.scenario;

/**
 * The published benchmark a scenario answers, as its result record names it. Here, with the record formats, and not
 * in the test kit: the scenario commands hold their seed as a constant, and picocli loads them where lib-extra/ is absent.
 *
 * @param file        the write-up, under ../shared/seeds in the development tree (named in the docs table)
 * @param title       who published it, and the scenario's name there
 * @param differences how a run here differs from the published one: scale, cores, network
 */
public record Seed(String file, String title, String differences) {
}
