package dev.sluice.bench.digest;

import dev.sluice.routing.sql.ClientCharset;
import dev.sluice.routing.sql.StatementDigest;
import dev.sluice.server.digest.DigestEntry;
import dev.sluice.server.digest.DigestKey;
import dev.sluice.server.digest.DigestStore;
import dev.sluice.server.digest.LoopDigests;
import dev.sluice.server.metrics.SluiceMetrics;
import io.netty.util.concurrent.ImmediateEventExecutor;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * What counting one statement costs an I/O thread (BEHAVIOUR §12), the part of the statement path
 * that query digests and latency histograms add, timed apart from everything else: the sysbench
 * comparison cannot tell a few percent from its noise, this can. Each benchmark does what a
 * session does for one statement once the digest's text is known:
 *
 * <ul>
 *   <li>{@code histogramOnly}: the statement duration histogram's record ({@code query-digests: false});</li>
 *   <li>{@code preparedPointSelect}: an EXECUTE of a prepared point select (sysbench's default): its
 *       digest is the prepared statement's kept key, found in the thread's table and recorded into,
 *       plus the histogram;</li>
 *   <li>{@code textPointSelect}: a COM_QUERY point select: its digest is computed from the text
 *       first, then found, recorded and the histogram recorded.</li>
 * </ul>
 *
 * Set against the proxy's CPU time per transaction from {@code sysbench-compare.sh}, the difference
 * to a path without them is their share of a statement's cost.
 *
 * <pre>java -jar sluice-bench/target/benchmarks.jar StatementCountingBench -prof gc -f 1 -wi 3 -i 5</pre>
 */
@BenchmarkMode({Mode.SampleTime, Mode.AverageTime})
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(time = 2)
@Measurement(time = 2)
@State(Scope.Thread)
public class StatementCountingBench {
    private static final byte[] POINT_SELECT =
            "SELECT c FROM sbtest1 WHERE id=5012".getBytes(StandardCharsets.UTF_8);
    /** A statement's time as the histograms see it; any value in a middle bucket does. */
    private static final long NANOS = 250_000;

    private SluiceMetrics metrics;
    private LoopDigests digests;
    private DigestKey prepared;

    @Setup
    public void setUp() {
        metrics = new SluiceMetrics();
        digests = new DigestStore().forLoop(ImmediateEventExecutor.INSTANCE);
        StatementDigest digester = digests.digester();
        prepared = DigestKey.of(digester.digest(POINT_SELECT, 0, POINT_SELECT.length, ClientCharset.UTF8MB4));
        // Seen before, as every statement of a running application is.
        digests.find(prepared, "rw", "sbtest", "sbtest");
    }

    @TearDown
    public void tearDown() {
        metrics.close();
    }

    @Benchmark
    public void histogramOnly() {
        metrics.statementAnswered("rw", "primary", NANOS);
    }

    @Benchmark
    public void preparedPointSelect() {
        DigestEntry e = digests.find(prepared, "rw", "sbtest", "sbtest");
        digests.record(e, NANOS, false, 1, true, System.currentTimeMillis());
        metrics.statementAnswered("rw", "primary", NANOS);
    }

    @Benchmark
    public void textPointSelect() {
        DigestEntry e = digests.find(digests.digester().digest(POINT_SELECT, 0, POINT_SELECT.length,
                ClientCharset.UTF8MB4), "rw", "sbtest", "sbtest");
        digests.record(e, NANOS, false, 1, true, System.currentTimeMillis());
        metrics.statementAnswered("rw", "primary", NANOS);
    }
}
