package dev.sluice.it.security;

import static dev.sluice.protocol.Command.COM_QUIT;
import static dev.sluice.protocol.packet.Packets.HEADER_SIZE;

import dev.sluice.it.support.RawMysqlClient;
import dev.sluice.it.support.RawMysqlClient.RawPacket;
import java.io.ByteArrayOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.SocketException;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;

/**
 * Blasts mutated packets at a live endpoint over many connections, from many threads, until a
 * given number of fuzzed packets has been sent. Three kinds of connection:
 *
 * <ul>
 *   <li><b>command</b>: logs in properly, then sends a run of a captured session's commands —
 *   most of them mutated with {@link PacketMutator#framed}, some left intact so that state builds
 *   up (a PREPARE before a mutated EXECUTE) — then a sentinel query, and waits for its answer:
 *   every packet before it has been dealt with. Half of them end with a
 *   {@linkplain PacketMutator#breaking breaking} packet and a FIN, and Sluice must close.</li>
 *   <li><b>login</b>: one or two mutated connection-phase packets, then a FIN.</li>
 *   <li><b>tls</b>: an SSLRequest and a mutated ClientHello, then a FIN.</li>
 * </ul>
 *
 * <p>What counts as a problem (and fails the test): a fresh connection not greeted or its proper
 * login refused (garbage elsewhere affected it); no answer to the sentinel while the connection
 * stays open; a connection Sluice does not close after the client's FIN; anything else
 * unexpected. A connection Sluice closes on bad input is an expected outcome, not a problem.
 */
final class NetworkFuzzer {
    private static final int MAX_PROBLEMS = 50;
    private static final int CHUNK_PACKETS = 16;
    private static final int MIN_RUN = 50;
    private static final int MAX_RUN = 250;
    private static final double MUTATED_SHARE = 0.9;

    private final int port;
    private final FuzzSeeds seeds;
    private final Duration readTimeout;
    private final List<byte[]> allCommands = new ArrayList<>();
    private final AtomicLong fuzzed = new AtomicLong();
    private final LongAdder intactSent = new LongAdder();
    private final LongAdder connections = new LongAdder();
    private final Map<String, LongAdder> outcomes = new ConcurrentHashMap<>();
    private final List<String> problems = new CopyOnWriteArrayList<>();

    NetworkFuzzer(int port, FuzzSeeds seeds, Duration readTimeout) {
        this.port = port;
        this.seeds = seeds;
        this.readTimeout = readTimeout;
        seeds.sessions().forEach(allCommands::addAll);
    }

    /** Runs {@code threads} clients until {@code target} fuzzed packets have been sent. */
    void run(long target, int threads, long seed) throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        try {
            List<Future<?>> workers = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                Random random = new Random(seed * 31 + t);
                workers.add(pool.submit(() -> {
                    PacketMutator mutator = new PacketMutator(random);
                    while (fuzzed.get() < target && problems.size() < MAX_PROBLEMS) {
                        oneConnection(random, mutator);
                    }
                    return null;
                }));
            }
            for (Future<?> f : workers) {
                f.get();
            }
        } finally {
            pool.shutdownNow();
        }
    }

    long fuzzed() {
        return fuzzed.get();
    }

    long intactSent() {
        return intactSent.sum();
    }

    long connections() {
        return connections.sum();
    }

    Map<String, Long> outcomes() {
        Map<String, Long> out = new java.util.TreeMap<>();
        outcomes.forEach((k, v) -> out.put(k, v.sum()));
        return out;
    }

    List<String> problems() {
        return problems;
    }

    private void oneConnection(Random random, PacketMutator mutator) {
        connections.increment();
        int kind = random.nextInt(100);
        try {
            if (kind < 70) {
                commands(random, mutator);
            } else if (kind < 95) {
                login(random, mutator);
            } else {
                tls(random, mutator);
            }
        } catch (SocketTimeoutException e) {
            problem("a connection got no answer within " + readTimeout.toSeconds() + " s: " + e.getMessage());
        } catch (IOException | RuntimeException e) {
            problem("unexpected " + e);
        }
    }

    private void outcome(String what) {
        outcomes.computeIfAbsent(what, k -> new LongAdder()).increment();
    }

    private void problem(String what) {
        if (problems.size() < MAX_PROBLEMS) {
            problems.add(what);
        }
    }

    // ---- command phase ----

    private void commands(Random random, PacketMutator mutator) throws IOException {
        RawMysqlClient c;
        try {
            c = RawMysqlClient.login(port, FuzzSeeds.USER, FuzzSeeds.PASSWORD, null, readTimeout);
        } catch (RawMysqlClient.ServerErrorException e) {
            problem("a proper login was refused: " + e.getMessage());
            return;
        } catch (IOException e) {
            problem("a proper login failed: " + e);
            return;
        }
        try (c) {
            List<byte[]> session = seeds.sessions().get(random.nextInt(seeds.sessions().size()));
            int start = random.nextInt(session.size());
            int run = MIN_RUN + random.nextInt(MAX_RUN - MIN_RUN + 1);
            byte[] marker = ("fz" + HexFormat.of().toHexDigits(random.nextLong())).getBytes(StandardCharsets.US_ASCII);
            MarkerScanner scanner = new MarkerScanner(marker);
            OutputStream out = c.socket().getOutputStream();
            InputStream in = c.input();
            ByteArrayOutputStream chunk = new ByteArrayOutputStream();
            List<byte[]> sent = new ArrayList<>();
            int mutatedInChunk = 0;
            try {
                for (int i = 0; i < run; i++) {
                    byte[] seed = session.get((start + i) % session.size());
                    byte[] packet;
                    if (random.nextDouble() < MUTATED_SHARE) {
                        packet = mutator.framed(seed, allCommands);
                        mutatedInChunk++;
                    } else {
                        packet = seed;
                        intactSent.increment();
                    }
                    chunk.write(packet);
                    sent.add(packet);
                    if ((i + 1) % CHUNK_PACKETS == 0 || i == run - 1) {
                        out.write(chunk.toByteArray());
                        out.flush();
                        fuzzed.addAndGet(mutatedInChunk);
                        chunk.reset();
                        mutatedInChunk = 0;
                        if (scanner.drainAvailable(in)) {
                            outcome("command: closed by Sluice during the run");
                            return;
                        }
                    }
                }
                out.write(sentinel(marker));
                out.flush();
            } catch (SocketException e) {
                outcome("command: closed by Sluice during the run");
                return;
            }
            try {
                if (!scanner.awaitMarker(in)) {
                    outcome("command: closed by Sluice before the sentinel");
                    return;
                }
            } catch (SocketTimeoutException e) {
                problem("no answer to the sentinel within " + readTimeout.toSeconds() + " s, the connection open; "
                        + "the last packets sent before it: " + lastHex(sent, 3));
                return;
            }
            outcome("command: sentinel answered");
            finish(c, random, mutator, session.get(random.nextInt(session.size())));
        }
    }

    /** Ends a command connection: a breaking packet then FIN (Sluice must close), a COM_QUIT, or a plain close. */
    private void finish(RawMysqlClient c, Random random, PacketMutator mutator, byte[] seed) throws IOException {
        int how = random.nextInt(4);
        try {
            if (how < 2) {
                c.writeRaw(mutator.breaking(seed));
                fuzzed.incrementAndGet();
                c.socket().shutdownOutput();
                awaitClose(c, "command: breaking packet, FIN");
            } else if (how == 2) {
                c.sendCommand(COM_QUIT, new byte[0]);
                awaitClose(c, "command: COM_QUIT");
            } else {
                outcome("command: client just went away");
            }
        } catch (SocketException e) {
            outcome("command: closed by Sluice at the end");
        }
    }

    private static String lastHex(List<byte[]> packets, int n) {
        StringBuilder b = new StringBuilder();
        for (byte[] p : packets.subList(Math.max(0, packets.size() - n), packets.size())) {
            b.append("[").append(HexFormat.of().formatHex(p, 0, Math.min(p.length, 64)))
                    .append(p.length > 64 ? "…" : "").append("] ");
        }
        return b.toString();
    }

    private static byte[] sentinel(byte[] marker) {
        byte[] sql = ("\3SELECT '" + new String(marker, StandardCharsets.US_ASCII) + "'")
                .getBytes(StandardCharsets.US_ASCII);
        byte[] out = new byte[HEADER_SIZE + sql.length];
        out[0] = (byte) sql.length;
        System.arraycopy(sql, 0, out, HEADER_SIZE, sql.length);
        return out;
    }

    // ---- connection phase ----

    private void login(Random random, PacketMutator mutator) throws IOException {
        try (RawMysqlClient c = RawMysqlClient.open(port, readTimeout)) {
            if (!greeted(c)) {
                return;
            }
            List<byte[]> logins = seeds.logins();
            ByteArrayOutputStream bytes = new ByteArrayOutputStream();
            int packets = random.nextInt(4) == 0 ? 2 : 1;
            for (int i = 0; i < packets; i++) {
                bytes.write(mutator.any(logins.get(random.nextInt(logins.size())), logins));
            }
            sendThenFin(c, bytes.toByteArray(), packets, "login");
        }
    }

    private void tls(Random random, PacketMutator mutator) throws IOException {
        try (RawMysqlClient c = RawMysqlClient.open(port, readTimeout)) {
            if (!greeted(c)) {
                return;
            }
            ByteArrayOutputStream bytes = new ByteArrayOutputStream();
            bytes.write(seeds.sslRequests().get(random.nextInt(seeds.sslRequests().size())));
            bytes.write(mutator.tlsRecord(seeds.clientHellos().get(random.nextInt(seeds.clientHellos().size()))));
            sendThenFin(c, bytes.toByteArray(), 1, "tls");
        }
    }

    private boolean greeted(RawMysqlClient c) throws IOException {
        RawPacket greeting = c.readPacket();
        if (greeting.isErr()) {
            problem("a fresh connection was refused: ERR " + greeting.err().errorCode() + " " + greeting.err().message());
            return false;
        }
        return true;
    }

    private void sendThenFin(RawMysqlClient c, byte[] bytes, int packets, String kind) throws IOException {
        try {
            c.writeRaw(bytes);
            fuzzed.addAndGet(packets);
            c.socket().shutdownOutput();
        } catch (SocketException e) {
            outcome(kind + ": closed by Sluice while sending");
            return;
        }
        awaitClose(c, kind);
    }

    /** Reads and drops whatever Sluice answers until it closes; still open after the timeout is a problem. */
    private void awaitClose(RawMysqlClient c, String kind) throws IOException {
        try {
            if (c.awaitClosed()) {
                outcome(kind + ": closed by Sluice");
            } else {
                problem(kind + ": the connection was neither closed nor reset");
            }
        } catch (SocketTimeoutException e) {
            problem(kind + ": Sluice kept the connection open " + readTimeout.toSeconds() + " s after the client's FIN");
        }
    }

    /** Finds a marker in the bytes Sluice sends, across read boundaries, without parsing packets. */
    private static final class MarkerScanner {
        private final byte[] marker;
        private final byte[] buffer = new byte[16 * 1024];
        private int matched;

        MarkerScanner(byte[] marker) {
            this.marker = marker;
        }

        /** Consumes what is already there without blocking; true when the connection was closed. */
        boolean drainAvailable(InputStream in) throws IOException {
            try {
                while (in.available() > 0) {
                    int n = in.read(buffer, 0, Math.min(buffer.length, in.available()));
                    if (n < 0) {
                        return true;
                    }
                    scan(n);
                }
                return false;
            } catch (SocketException e) {
                return true;
            }
        }

        /** Blocks until the marker went by (true) or the connection closed (false). */
        boolean awaitMarker(InputStream in) throws IOException {
            try {
                while (matched < marker.length) {
                    int n = in.read(buffer);
                    if (n < 0) {
                        return false;
                    }
                    scan(n);
                }
                return true;
            } catch (EOFException e) {
                return false;
            } catch (SocketException e) {
                if (String.valueOf(e.getMessage()).contains("reset")) {
                    return false;
                }
                throw e;
            }
        }

        private void scan(int n) {
            for (int i = 0; i < n && matched < marker.length; i++) {
                // The marker starts with 'f' and has no other 'f' at its start: a restart on mismatch is enough.
                if (buffer[i] == marker[matched]) {
                    matched++;
                } else {
                    matched = buffer[i] == marker[0] ? 1 : 0;
                }
            }
        }
    }
}
