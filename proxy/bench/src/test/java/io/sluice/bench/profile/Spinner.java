package io.sluice.bench.profile;

/** A JVM for {@link HotMethodsTest} to profile: it spends its CPU in {@link #spin}, until it is killed. */
public final class Spinner {

    private Spinner() {
    }

    public static void main(String[] args) {
        long sum = 0;
        while (true) {
            sum = spin(sum);
            if (sum == 42) {
                System.out.println(sum);
            }
        }
    }

    static long spin(long seed) {
        long x = seed;
        for (int i = 0; i < 1_000_000; i++) {
            x = x * 6364136223846793005L + 1442695040888963407L;
        }
        return x;
    }
}
