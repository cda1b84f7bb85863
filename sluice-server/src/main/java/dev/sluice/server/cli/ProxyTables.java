package dev.sluice.server.cli;

import dev.sluice.server.admin.EndpointDescription;
import dev.sluice.server.admin.NodeDescription;
import dev.sluice.server.admin.ProxyDescription;
import java.io.PrintWriter;
import java.util.List;
import java.util.Map;

/** DescribeDBProxy as tables: the endpoints, the nodes, and how each endpoint uses each node. */
final class ProxyTables {
    private static final long MINUTE = 60;
    private static final long HOUR = 3600;
    private static final long DAY = 86_400;

    private ProxyTables() {
    }

    static void print(ProxyDescription d, PrintWriter out) {
        out.println("Sluice " + d.version() + ", up " + uptime(d.uptimeSeconds()));
        out.println();
        out.println("ENDPOINTS");
        endpoints(d.endpoints()).print(out);
        out.println();
        out.println("NODES");
        nodes(d.nodes()).print(out);
        out.println();
        out.println("LOAD PER ENDPOINT");
        loads(d.nodes()).print(out);
        if (!d.instances().isEmpty()) {
            out.println();
            out.println("INSTANCES");
            TextTable t = new TextTable().left("NAME").left("ROLE").left("ADMIN").left("LISTEN").left("HEALTH");
            d.instances().forEach(i -> t.row(i.name(), i.name().equals(d.leader()) ? "leader" : "-", i.admin(),
                    String.join(" ", i.listen()), i.health() == null ? "-" : i.health()));
            t.print(out);
        }
        if (!d.switchover().state().equals("none")) {
            out.println();
            out.println("SWITCHOVER");
            out.println(switchover(d.switchover()));
        }
        if (!d.failover().state().equals("none")) {
            out.println();
            out.println("FAILOVER");
            out.println(failover(d.failover()));
        }
    }

    /** The failover in progress, or the last one's outcome and what became of its old primary. */
    static String failover(dev.sluice.server.switchover.FailoverStatus s) {
        String leg = s.from() == null ? "" : " '" + s.from() + "' -> '" + (s.to() == null ? "?" : s.to()) + "'";
        String held = s.heldMillis() == null ? "" : ", writes held " + s.heldMillis() + " ms";
        String step = s.step() == null ? "" : ", last step " + s.step();
        String message = s.message() == null ? "" : ": " + s.message();
        String former = s.formerPrimaryMessage() == null ? "" : "\nformer primary '" + s.formerPrimaryNode() + "' "
                + s.formerPrimary() + ": " + s.formerPrimaryMessage();
        return s.state() + " (" + s.trigger() + ")" + leg + step + held + message + former;
    }

    /** One line: the switchover in progress, or the last one's outcome. */
    static String switchover(dev.sluice.server.switchover.SwitchoverStatus s) {
        String leg = s.from() == null ? "" : " '" + s.from() + "' -> '" + s.to() + "'";
        String held = s.heldMillis() == null ? "" : ", writes held " + s.heldMillis() + " ms";
        String step = s.step() == null ? "" : ", last step " + s.step();
        String message = s.message() == null ? "" : ": " + s.message();
        return s.state() + leg + step + held + message;
    }

    static TextTable endpoints(List<EndpointDescription> endpoints) {
        TextTable t = new TextTable().left("NAME").left("LISTEN").left("MODE").left("BALANCER").left("CONSISTENCY")
                .right("SESSIONS");
        for (EndpointDescription e : endpoints) {
            t.row(e.name(), e.listen(), e.mode(), e.balancer(), e.consistency(), e.activeSessions());
        }
        return t;
    }

    static TextTable nodes(List<NodeDescription> nodes) {
        TextTable t = new TextTable().left("NAME").left("ROLE").left("STATE").left("RO").left("REPLICATION")
                .right("LAG").left("GTID").right("SESSIONS").right("REQUESTS");
        for (NodeDescription n : nodes) {
            int sessions = 0;
            int requests = 0;
            for (NodeDescription.NodeLoad l : n.endpoints().values()) {
                sessions += l.activeSessions();
                requests += l.activeRequests();
            }
            t.row(n.name(), n.role(), n.draining() ? n.state() + ",draining" : n.state(), n.readOnly() ? "yes" : "no",
                    n.replication(), n.lagSeconds() == null ? null : n.lagSeconds() + "s", n.gtidPosition(), sessions,
                    requests);
        }
        return t;
    }

    static TextTable loads(List<NodeDescription> nodes) {
        TextTable t = new TextTable().left("NODE").left("ENDPOINT").right("WEIGHT").left("READABLE")
                .right("SESSIONS").right("REQUESTS").right("STATEMENTS");
        for (NodeDescription n : nodes) {
            for (Map.Entry<String, NodeDescription.NodeLoad> e : n.endpoints().entrySet()) {
                NodeDescription.NodeLoad l = e.getValue();
                t.row(n.name(), e.getKey(), l.weight(), l.readable() ? "yes" : "no", l.activeSessions(),
                        l.activeRequests(), l.statements());
            }
        }
        return t;
    }

    static String uptime(long seconds) {
        if (seconds < MINUTE) {
            return seconds + "s";
        }
        if (seconds < HOUR) {
            return seconds / MINUTE + "m" + seconds % MINUTE + "s";
        }
        if (seconds < DAY) {
            return seconds / HOUR + "h" + seconds % HOUR / MINUTE + "m";
        }
        return seconds / DAY + "d" + seconds % DAY / HOUR + "h";
    }
}
