package io.sluice.bench.bridge;

import java.util.Arrays;

/**
 * One client's deliveries in its partition against what it was owed (its key's offsets after the position its first
 * subscription started at): exact when every owed record came once, in order, and nothing else came.
 *
 * @param owed       records of its key after its first position
 * @param delivered  messages it received in the partition, repeats included
 * @param missing    owed records it never received: gaps
 * @param duplicates receipts beyond the first of a record
 * @param outOfOrder receipts with a lower seq than the one before
 * @param unexpected distinct records received that it was not owed (another key's, or before its start)
 */
record DeliveryCheck(long owed, long delivered, long missing, long duplicates, long outOfOrder, long unexpected) {

    boolean exact() {
        return missing == 0 && duplicates == 0 && outOfOrder == 0 && unexpected == 0;
    }

    /** @param owed ascending offsets; @param delivered seqs in the order received */
    static DeliveryCheck of(long[] owed, long[] delivered) {
        long outOfOrder = 0;
        for (int i = 1; i < delivered.length; i++) {
            if (delivered[i] < delivered[i - 1]) {
                outOfOrder++;
            }
        }
        long[] sorted = delivered.clone();
        Arrays.sort(sorted);
        long duplicates = 0;
        long distinct = 0;
        long found = 0;
        for (int i = 0; i < sorted.length; i++) {
            if (i > 0 && sorted[i] == sorted[i - 1]) {
                duplicates++;
                continue;
            }
            distinct++;
            if (Arrays.binarySearch(owed, sorted[i]) >= 0) {
                found++;
            }
        }
        return new DeliveryCheck(owed.length, delivered.length, owed.length - found, duplicates, outOfOrder, distinct - found);
    }
}
