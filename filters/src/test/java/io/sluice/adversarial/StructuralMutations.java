package io.sluice.adversarial;

import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Random;

import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.message.RequestHeaderData;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.ByteBufferAccessor;
import org.apache.kafka.common.protocol.Message;
import org.apache.kafka.common.protocol.ObjectSerializationCache;

import io.sluice.adversarial.Mutation.Kind;

/**
 * Mutations of the decoded request, encoded again with kafka-clients' own classes: the bytes are well-formed, the
 * content is not what any client sends. An element of some array duplicated (the same topic, partition or group
 * twice), or a number or string field set to an extreme value (negative partition, {@code Integer.MAX_VALUE} bytes,
 * a 32 KiB name). Fields are found by reflection over the generated classes' {@code setX} methods, so every API is
 * covered without a list per API.
 */
final class StructuralMutations {

    /** The links elements of kafka-clients' implicit hash collections keep: not fields, and changing them loops iteration. */
    private static final java.util.Set<String> COLLECTION_LINKS = java.util.Set.of("setNext", "setPrev");

    private record Decoded(RequestHeaderData header, short headerVersion, ApiMessage body) {
    }

    private record Slot(Message owner, Method setter, String path) {
    }

    private record Element(Collection<Object> collection, Object element, String path) {
    }

    Mutation duplicateElement(Corpus.Seed seed, Random random) {
        Decoded decoded = decode(seed);
        if (decoded == null) {
            return null;
        }
        List<Element> elements = new ArrayList<>();
        collectElements(decoded.body(), decoded.body().getClass().getSimpleName(), elements);
        if (elements.isEmpty()) {
            return null;
        }
        Element pick = elements.get(random.nextInt(elements.size()));
        int copies = random.nextInt(10) == 0 ? 1000 : 1;
        try {
            for (int i = 0; i < copies; i++) {
                pick.collection().add(pick.element() instanceof Message m ? m.duplicate() : pick.element());
            }
        } catch (RuntimeException e) {
            return null; // an immutable collection
        }
        return encode(seed, decoded, Kind.DUPLICATE_ELEMENT, "added " + copies + " copies of an element of " + pick.path());
    }

    Mutation fieldValue(Corpus.Seed seed, Random random) {
        Decoded decoded = decode(seed);
        if (decoded == null) {
            return null;
        }
        List<Slot> slots = new ArrayList<>();
        collectSlots(decoded.body(), decoded.body().getClass().getSimpleName(), slots);
        if (slots.isEmpty()) {
            return null;
        }
        Slot slot = slots.get(random.nextInt(slots.size()));
        Class<?> type = slot.setter().getParameterTypes()[0];
        Object value = extreme(type, random);
        try {
            slot.setter().invoke(slot.owner(), value);
        } catch (ReflectiveOperationException | RuntimeException e) {
            return null;
        }
        String shown = value instanceof String s && s.length() > 40 ? "a string of " + s.length() + " chars" : String.valueOf(value);
        return encode(seed, decoded, Kind.FIELD_VALUE, slot.path() + " -> " + shown);
    }

    private static Object extreme(Class<?> type, Random random) {
        if (type == int.class) {
            return Mutator.INTERESTING_INTS[random.nextInt(Mutator.INTERESTING_INTS.length)];
        }
        if (type == long.class) {
            long[] values = {-1, 0, Long.MAX_VALUE, Long.MIN_VALUE, Integer.MAX_VALUE + 1L};
            return values[random.nextInt(values.length)];
        }
        if (type == short.class) {
            short[] values = {-1, 0, Short.MAX_VALUE, Short.MIN_VALUE};
            return values[random.nextInt(values.length)];
        }
        if (type == byte.class) {
            byte[] values = {-1, 0, Byte.MAX_VALUE, Byte.MIN_VALUE};
            return values[random.nextInt(values.length)];
        }
        if (type == boolean.class) {
            return random.nextBoolean();
        }
        if (type == Uuid.class) {
            Uuid[] values = {Uuid.ZERO_UUID, Uuid.METADATA_TOPIC_ID, Uuid.randomUuid()};
            return values[random.nextInt(values.length)];
        }
        // String
        String[] values = {"", "*", ".*", "__consumer_offsets", "fz-secure", "fz-scores", "fz-scores.live.*", "x".repeat(32_767),
            "a\r\nb", "\u0000", "../../etc"};
        return values[random.nextInt(values.length)];
    }

    private static Decoded decode(Corpus.Seed seed) {
        try {
            ByteBufferAccessor reader = new ByteBufferAccessor(ByteBuffer.wrap(seed.frame(), 4, seed.frame().length - 4));
            short headerVersion = seed.api().requestHeaderVersion(seed.version());
            RequestHeaderData header = new RequestHeaderData(reader, headerVersion);
            ApiMessage body = seed.api().messageType.newRequest();
            body.read(reader, seed.version());
            return new Decoded(header, headerVersion, body);
        } catch (RuntimeException e) {
            return null;
        }
    }

    private static Mutation encode(Corpus.Seed seed, Decoded decoded, Kind kind, String description) {
        try {
            ObjectSerializationCache cache = new ObjectSerializationCache();
            int size = decoded.header().size(cache, decoded.headerVersion()) + decoded.body().size(cache, seed.version());
            ByteBuffer buffer = ByteBuffer.allocate(4 + size);
            buffer.putInt(size);
            ByteBufferAccessor writer = new ByteBufferAccessor(buffer);
            decoded.header().write(writer, cache, decoded.headerVersion());
            decoded.body().write(writer, cache, seed.version());
            return new Mutation(kind, description, buffer.array(), false, true);
        } catch (RuntimeException e) {
            return null; // the value cannot be written in this version (a field it lacks, a null it forbids)
        }
    }

    @SuppressWarnings("unchecked")
    private static void collectElements(Message message, String path, List<Element> out) {
        for (Method getter : getters(message)) {
            Object value = get(message, getter);
            if (value instanceof Collection<?> collection && !collection.isEmpty()) {
                Object first = collection.iterator().next();
                out.add(new Element((Collection<Object>) collection, first, path + "." + getter.getName()));
                for (Object element : collection) {
                    if (element instanceof Message child) {
                        collectElements(child, path + "." + getter.getName() + "[]", out);
                    }
                }
            } else if (value instanceof Message child) {
                collectElements(child, path + "." + getter.getName(), out);
            }
        }
    }

    private static void collectSlots(Message message, String path, List<Slot> out) {
        for (Method method : sortedMethods(message.getClass())) {
            if (method.getName().startsWith("set") && method.getParameterCount() == 1 && method.getName().length() > 3
                    && settable(method.getParameterTypes()[0]) && !COLLECTION_LINKS.contains(method.getName())) {
                out.add(new Slot(message, method, path + "." + Character.toLowerCase(method.getName().charAt(3)) + method.getName().substring(4)));
            }
        }
        for (Method getter : getters(message)) {
            Object value = get(message, getter);
            if (value instanceof Collection<?> collection) {
                for (Object element : collection) {
                    if (element instanceof Message child) {
                        collectSlots(child, path + "." + getter.getName() + "[]", out);
                    }
                }
            } else if (value instanceof Message child) {
                collectSlots(child, path + "." + getter.getName(), out);
            }
        }
    }

    /** Reflection lists methods in no fixed order; a seed must pick the same field in every JVM. */
    private static List<Method> sortedMethods(Class<?> type) {
        List<Method> methods = new ArrayList<>(List.of(type.getMethods()));
        methods.sort(java.util.Comparator.comparing(Method::getName).thenComparing(m -> m.getParameterTypes().length == 0 ? "" : m.getParameterTypes()[0].getName()));
        return methods;
    }

    private static boolean settable(Class<?> type) {
        return type.isPrimitive() || type == String.class || type == Uuid.class;
    }

    /** The public no-argument accessors a generated class has for its fields (each has a setter of the same name). */
    private static List<Method> getters(Message message) {
        List<Method> getters = new ArrayList<>();
        for (Method method : message.getClass().getMethods()) {
            if (method.getParameterCount() == 0 && !Modifier.isStatic(method.getModifiers()) && method.getDeclaringClass() == message.getClass()
                    && hasSetter(message.getClass(), method.getName())) {
                getters.add(method);
            }
        }
        getters.sort(java.util.Comparator.comparing(Method::getName));
        return getters;
    }

    private static boolean hasSetter(Class<?> type, String field) {
        String setter = "set" + Character.toUpperCase(field.charAt(0)) + field.substring(1);
        for (Method method : type.getMethods()) {
            if (method.getName().equals(setter) && method.getParameterCount() == 1) {
                return true;
            }
        }
        return false;
    }

    private static Object get(Message message, Method getter) {
        try {
            return getter.invoke(message);
        } catch (ReflectiveOperationException e) {
            return null;
        }
    }
}
