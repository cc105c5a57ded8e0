package io.sluice.app.demo;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.errors.InterruptException;
import org.apache.kafka.common.serialization.StringSerializer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;

/**
 * Plays made-up matches into the topic {@code scores}, keyed as in Kafkorama's live-scores example: {@code <match-id>}
 * carries one match, {@code live/<sport>} every running match of a sport, {@code results} the finished ones. A
 * score changes every {@code period}; a match ends after a few changes and a new one of the same sport starts.
 */
final class LiveScores implements AutoCloseable {

    static final String TOPIC = "scores";

    private static final Logger LOG = LoggerFactory.getLogger(LiveScores.class);
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Map<String, List<String[]>> FIXTURES = Map.of(
            "football", List.of(new String[] {"Ajax", "Benfica"}, new String[] {"Celtic", "Dortmund"}, new String[] {"Everton", "Feyenoord"}),
            "tennis", List.of(new String[] {"Garcia", "Halep"}, new String[] {"Ito", "Jovic"}),
            "basketball", List.of(new String[] {"Knicks", "Lakers"}, new String[] {"Magic", "Nets"}));
    private static final int CHANGES_PER_MATCH = 12;

    private final KafkaProducer<String, String> producer;
    private final ScheduledExecutorService clock = Executors.newSingleThreadScheduledExecutor(r -> {
        Thread t = new Thread(r, "sluice-demo-live-scores");
        t.setDaemon(true);
        return t;
    });
    private final Random random = new Random(7);
    private final Map<String, Match> live = new LinkedHashMap<>();
    private final List<Map<String, Object>> results = new ArrayList<>();
    private int matchNumber;

    private static final class Match {
        final String id;
        final String sport;
        final String home;
        final String away;
        int homeScore;
        int awayScore;
        int changes;

        Match(String id, String sport, String[] teams) {
            this.id = id;
            this.sport = sport;
            this.home = teams[0];
            this.away = teams[1];
        }

        Map<String, Object> json(String status) {
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("match", id);
            m.put("sport", sport);
            m.put("home", home);
            m.put("away", away);
            m.put("score", List.of(homeScore, awayScore));
            m.put("status", status);
            return m;
        }
    }

    LiveScores(String bootstrap) {
        producer = new KafkaProducer<>(Map.of(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap, ProducerConfig.LINGER_MS_CONFIG, 0),
                new StringSerializer(), new StringSerializer());
    }

    /** Starts one match per sport, publishes them, then changes a score every {@code periodMillis}. */
    void start(long periodMillis) {
        clock.execute(() -> FIXTURES.keySet().stream().sorted().forEach(this::kickOff));
        clock.scheduleAtFixedRate(this::tick, periodMillis, periodMillis, TimeUnit.MILLISECONDS);
    }

    private void kickOff(String sport) {
        List<String[]> fixtures = FIXTURES.get(sport);
        Match match = new Match(sport.substring(0, 3) + "-" + (++matchNumber), sport, fixtures.get(matchNumber % fixtures.size()));
        live.put(match.id, match);
        send(match.id, match.json("live"));
        sendSport(sport);
    }

    private void tick() {
        try {
            List<Match> running = new ArrayList<>(live.values());
            Match match = running.get(random.nextInt(running.size()));
            int points = match.sport.equals("basketball") ? 1 + random.nextInt(3) : 1;
            if (random.nextBoolean()) {
                match.homeScore += points;
            } else {
                match.awayScore += points;
            }
            if (++match.changes < CHANGES_PER_MATCH) {
                send(match.id, match.json("live"));
                sendSport(match.sport);
                return;
            }
            live.remove(match.id);
            send(match.id, match.json("final"));
            results.add(0, match.json("final"));
            if (results.size() > 10) {
                results.remove(results.size() - 1);
            }
            send("results", Map.of("results", results));
            kickOff(match.sport);
        } catch (InterruptException e) {
            // The demo is stopping while a send waits for an absent broker.
            Thread.currentThread().interrupt();
        } catch (RuntimeException e) {
            // Keep playing: one failed send (say, the broker restarting) should not end the demo's feed.
            LOG.warn("live scores: {}", e.toString());
        }
    }

    private void sendSport(String sport) {
        List<Map<String, Object>> matches = live.values().stream().filter(m -> m.sport.equals(sport)).map(m -> m.json("live")).toList();
        send("live/" + sport, Map.of("sport", sport, "matches", matches));
    }

    private void send(String key, Object value) {
        try {
            producer.send(new ProducerRecord<>(TOPIC, key, JSON.writeValueAsString(value)));
        } catch (JsonProcessingException e) {
            throw new IllegalStateException(e);
        }
    }

    @Override
    public void close() {
        clock.shutdownNow();
        try {
            clock.awaitTermination(5, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        producer.close(Duration.ofSeconds(5));
    }
}
