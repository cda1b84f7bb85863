package dev.sluice.server.net;

import io.netty.channel.group.ChannelGroupFuture;
import java.time.Duration;
import java.util.concurrent.TimeUnit;

/**
 * Closing Sluice's sockets before its I/O threads end. Netty's I/O thread closes the channels
 * registered with it as it ends only if it saw the end asked before its last round of tasks; asked
 * while the thread runs tasks (with no quiet period, as Sluice stops), it ends without closing any,
 * and their sockets stay open, no longer read, for as long as the process lives: a backend
 * connection left on the server (docs/ARCHITECTURE.md, "No socket outlives the proxy"). So each
 * part of Sluice closes its own sockets first, and only then ends its threads.
 */
public final class Sockets {
    private Sockets() {
    }

    /**
     * Waits up to {@code wait} for every close of {@code closing} (a {@code ChannelGroup.close()}
     * each); returns how many sockets were still open when the wait ended.
     */
    public static int awaitClosed(Duration wait, ChannelGroupFuture... closing) {
        long deadline = System.nanoTime() + wait.toNanos();
        int left = 0;
        for (ChannelGroupFuture f : closing) {
            if (!f.awaitUninterruptibly(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS)) {
                left += (int) f.group().stream().filter(c -> c.isOpen()).count();
            }
        }
        return left;
    }
}
