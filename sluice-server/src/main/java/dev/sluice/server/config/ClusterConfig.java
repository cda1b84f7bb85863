package dev.sluice.server.config;

import java.net.URI;
import java.net.URISyntaxException;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;

/**
 * Cluster mode's {@code cluster:} section (BEHAVIOUR §11): the etcd cluster that holds the shared
 * configuration, this instance's name among the others, and the key prefix they share.
 *
 * @param etcd the etcd client URLs ({@code http://host:port})
 * @param name this instance's name, unique among the instances sharing {@code prefix}
 * @param prefix the etcd key prefix, {@code /} and no trailing {@code /} (e.g. {@code /sluice/prod})
 */
public record ClusterConfig(List<URI> etcd, String name, String prefix) {
    /** What an instance name may hold: it becomes part of an etcd key. */
    private static final Pattern NAME = Pattern.compile("[A-Za-z0-9][A-Za-z0-9._-]{0,63}");
    private static final Pattern PREFIX = Pattern.compile("(/[A-Za-z0-9._-]+)+");

    public ClusterConfig {
        etcd = List.copyOf(etcd);
    }

    /** The key holding the shared configuration (nodes and endpoints). */
    public String configKey() {
        return prefix + "/config";
    }

    /** The prefix under which instances register. */
    public String instancesPrefix() {
        return prefix + "/instances/";
    }

    /** The key the instances campaign for: the leader's name, under its lease (BEHAVIOUR §11). */
    public String leaderKey() {
        return prefix + "/leader";
    }

    /** This instance's registration key. */
    public String instanceKey() {
        return instancesPrefix() + name;
    }

    static ClusterConfig parse(YamlSection s) {
        List<String> urls = s.stringList("etcd");
        String name = s.requiredText("name");
        String prefix = s.requiredText("prefix");
        s.rejectUnknownKeys();
        if (urls.isEmpty()) {
            throw new ConfigException(s.path() + ".etcd: give at least one etcd URL, e.g. [http://127.0.0.1:2379]");
        }
        List<URI> etcd = new ArrayList<>();
        for (String url : urls) {
            etcd.add(etcdUrl(s.path() + ".etcd", url));
        }
        if (!NAME.matcher(name).matches()) {
            throw new ConfigException(s.path() + ".name: '" + name + "' is not an instance name; use letters, digits, "
                    + "'.', '_' and '-' (at most 64), e.g. sluice-a");
        }
        if (!PREFIX.matcher(prefix).matches()) {
            throw new ConfigException(s.path() + ".prefix: '" + prefix + "' is not a key prefix; write it as a path "
                    + "such as /sluice/prod (a leading '/', no trailing '/')");
        }
        return new ClusterConfig(etcd, name, prefix);
    }

    private static URI etcdUrl(String path, String text) {
        try {
            URI u = new URI(text);
            boolean scheme = "http".equals(u.getScheme()) || "https".equals(u.getScheme());
            if (scheme && u.getHost() != null && u.getPort() > 0
                    && (u.getPath() == null || u.getPath().isEmpty() || u.getPath().equals("/"))) {
                return u;
            }
        } catch (URISyntaxException e) {
            // reported below, with what is expected
        }
        throw new ConfigException(path + ": '" + text + "' is not an etcd client URL; write e.g. http://10.0.0.5:2379");
    }
}
