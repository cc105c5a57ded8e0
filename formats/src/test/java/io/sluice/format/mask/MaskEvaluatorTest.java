package io.sluice.format.mask;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;

import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

import org.junit.jupiter.api.Test;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.TextNode;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Random values under random masks, compared with an evaluator written from docs/masking.md alone: plain Java maps and
 * lists instead of Jackson trees, its own pointer splitting, its own HMAC. A seed that fails is printed, so the case can
 * be replayed.
 */
class MaskEvaluatorTest {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String[] NAMES = {"a", "b", "card", "0", "1", "x/y", "t~n", "é"};
    private static final MaskKind[] KINDS = MaskKind.values();

    /** What a mask does, per the documentation; null means "the record fails". */
    private static final Object FAILED = new Object();

    @Test
    void maskedValuesAgreeWithTheDocumentedRules() throws Exception {
        long base = new Random().nextLong();
        for (int i = 0; i < 3000; i++) {
            long seed = base + i;
            Random random = new Random(seed);
            Object value = randomValue(random, 0, true);
            List<FieldMaskConfig> fields = randomFields(random);
            ValueMask mask = Masks.build(List.of(new MaskRule("t", fields, null, null)), MasksTest.KEY).forViewer("t", MaskViewer.NOBODY);

            Object expected = evaluate(copy(value), fields);
            Object actual;
            try {
                actual = JSON.convertValue(mask.apply(JSON.valueToTree(value)), Object.class);
            } catch (UnmaskableException e) {
                actual = FAILED;
            }
            assertThat(describe(actual)).as("seed %d, value %s, masks %s", seed, JSON.writeValueAsString(value), fields).isEqualTo(describe(expected));
        }
    }

    private static String describe(Object value) throws Exception {
        return value == FAILED ? "<the record fails>" : JSON.writeValueAsString(value);
    }

    // ---- the evaluator

    private static Object evaluate(Object value, List<FieldMaskConfig> fields) {
        if (!(value instanceof Map<?, ?>) && !(value instanceof List<?>)) {
            return FAILED; // "a value that is not a JSON object or array ... is the record's failure"
        }
        for (FieldMaskConfig field : fields) {
            List<String> segments = segments(field.path());
            Object parent = value;
            for (int i = 0; i < segments.size() - 1 && parent != null; i++) {
                parent = child(parent, segments.get(i));
            }
            String last = segments.get(segments.size() - 1);
            if (parent instanceof Map<?, ?> map) {
                @SuppressWarnings("unchecked")
                Map<String, Object> object = (Map<String, Object>) map;
                if (!object.containsKey(last)) {
                    continue; // an absent field stays absent
                }
                if (field.mask() == MaskKind.REMOVE) {
                    object.remove(last);
                    continue;
                }
                Object masked = mask(object.get(last), field);
                if (masked == FAILED) {
                    return FAILED;
                }
                object.put(last, masked);
            } else if (parent instanceof List<?> list && index(last) >= 0 && index(last) < list.size()) {
                if (field.mask() == MaskKind.REMOVE) {
                    return FAILED; // "remove cannot take an array element out"
                }
                Object masked = mask(list.get(index(last)), field);
                if (masked == FAILED) {
                    return FAILED;
                }
                @SuppressWarnings("unchecked")
                List<Object> elements = (List<Object>) list;
                elements.set(index(last), masked);
            }
        }
        return value;
    }

    private static Object mask(Object current, FieldMaskConfig field) {
        switch (field.mask()) {
            case NULL:
                return null;
            case FIXED:
                return JSON.convertValue(field.value(), Object.class);
            case HASH:
                if (current == null) {
                    return null; // "null stays null under hash, keepFirst and keepLast"
                }
                try {
                    String text = current instanceof String s ? s : JSON.writeValueAsString(current);
                    Mac mac = Mac.getInstance("HmacSHA256");
                    mac.init(new SecretKeySpec(MasksTest.KEY, "HmacSHA256"));
                    return Base64.getUrlEncoder().withoutPadding().encodeToString(mac.doFinal(text.getBytes(StandardCharsets.UTF_8)));
                } catch (Exception e) {
                    throw new AssertionError(e);
                }
            default:
                if (current == null) {
                    return null;
                }
                if (!(current instanceof String text)) {
                    return FAILED;
                }
                int[] points = text.codePoints().toArray();
                int keep = points.length <= field.chars() ? 0 : field.chars();
                StringBuilder out = new StringBuilder();
                for (int i = 0; i < points.length; i++) {
                    boolean kept = field.mask() == MaskKind.KEEP_FIRST ? i < keep : i >= points.length - keep;
                    out.appendCodePoint(kept ? points[i] : '*');
                }
                return out.toString();
        }
    }

    private static Object child(Object node, String segment) {
        if (node instanceof Map<?, ?> map) {
            return map.get(segment);
        }
        if (node instanceof List<?> list) {
            int i = index(segment);
            return i >= 0 && i < list.size() ? list.get(i) : null;
        }
        return null;
    }

    private static int index(String segment) {
        if (segment.isEmpty() || segment.length() > 9 || (segment.length() > 1 && segment.charAt(0) == '0') || !segment.chars().allMatch(Character::isDigit)) {
            return -1;
        }
        return Integer.parseInt(segment);
    }

    private static List<String> segments(String pointer) {
        List<String> out = new ArrayList<>();
        for (String raw : pointer.substring(1).split("/", -1)) {
            out.add(raw.replace("~1", "/").replace("~0", "~"));
        }
        return out;
    }

    // ---- random cases

    private static Object randomValue(Random random, int depth, boolean top) {
        // The top is mostly an object (sometimes a scalar, which fails); below, containers until depth 3, then scalars.
        int kind = top ? (random.nextInt(10) < 9 ? 0 : 6 + random.nextInt(4)) : depth >= 3 ? 6 + random.nextInt(4) : random.nextInt(10);
        switch (kind % 10) {
            case 0, 1, 2:
                Map<String, Object> object = new LinkedHashMap<>();
                int n = random.nextInt(5);
                for (int i = 0; i < n; i++) {
                    object.put(NAMES[random.nextInt(NAMES.length)], randomValue(random, depth + 1, false));
                }
                return object;
            case 3, 4, 5:
                List<Object> list = new ArrayList<>();
                int m = random.nextInt(4);
                for (int i = 0; i < m; i++) {
                    list.add(randomValue(random, depth + 1, false));
                }
                return list;
            case 6:
                return random.nextInt(1000) - 500;
            case 7:
                return random.nextBoolean() ? null : random.nextBoolean();
            default:
                StringBuilder text = new StringBuilder();
                int length = random.nextInt(12);
                for (int i = 0; i < length; i++) {
                    text.appendCodePoint(random.nextInt(8) == 0 ? 0x1F600 + random.nextInt(40) : 'a' + random.nextInt(26));
                }
                return text.toString();
        }
    }

    private static List<FieldMaskConfig> randomFields(Random random) {
        List<FieldMaskConfig> fields = new ArrayList<>();
        List<String> paths = new ArrayList<>();
        int n = 1 + random.nextInt(4);
        while (fields.size() < n) {
            StringBuilder path = new StringBuilder();
            int depth = 1 + random.nextInt(3);
            for (int d = 0; d < depth; d++) {
                path.append('/').append(NAMES[random.nextInt(NAMES.length)].replace("~", "~0").replace("/", "~1"));
            }
            if (paths.contains(path.toString())) {
                continue;
            }
            paths.add(path.toString());
            MaskKind kind = KINDS[random.nextInt(KINDS.length)];
            JsonNode value = kind == MaskKind.FIXED ? TextNode.valueOf("fixed-" + random.nextInt(9)) : null;
            Integer chars = kind == MaskKind.KEEP_FIRST || kind == MaskKind.KEEP_LAST ? random.nextInt(6) : null;
            fields.add(new FieldMaskConfig(path.toString(), kind, value, chars));
        }
        return fields;
    }

    @SuppressWarnings("unchecked")
    private static Object copy(Object value) {
        if (value instanceof Map<?, ?> map) {
            Map<String, Object> out = new LinkedHashMap<>();
            ((Map<String, Object>) map).forEach((k, v) -> out.put(k, copy(v)));
            return out;
        }
        if (value instanceof List<?> list) {
            List<Object> out = new ArrayList<>();
            list.forEach(v -> out.add(copy(v)));
            return out;
        }
        return value;
    }
}
