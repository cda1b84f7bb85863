package dev.sluice.server.config;

import java.net.URI;
import java.net.URISyntaxException;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.regex.Pattern;

/**
 * Cluster mode's {@code cluster:} section (BEHAVIOUR §11): the etcd cluster that holds the shared
 * configuration, how this instance reaches it, this instance's name among the others, and the key
 * prefix they share.
 *
 * @param etcd the etcd client URLs ({@code http://host:port}, or all {@code https://} with {@code tls})
 * @param name this instance's name, unique among the instances sharing {@code prefix}
 * @param prefix the etcd key prefix, {@code /} and no trailing {@code /} (e.g. {@code /sluice/prod})
 * @param tls TLS toward etcd: present exactly when the URLs are {@code https://}
 * @param login etcd's own authentication, when etcd has it enabled
 */
public record ClusterConfig(List<URI> etcd, String name, String prefix, Optional<EtcdTls> tls,
        Optional<EtcdLogin> login) {
    /** What an instance name may hold: it becomes part of an etcd key. */
    private static final Pattern NAME = Pattern.compile("[A-Za-z0-9][A-Za-z0-9._-]{0,63}");
    private static final Pattern PREFIX = Pattern.compile("(/[A-Za-z0-9._-]+)+");
    private static final String HTTPS = "https";

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

    static ClusterConfig parse(YamlSection s, SecretResolver secrets) {
        List<String> urls = s.stringList("etcd");
        String name = s.requiredText("name");
        String prefix = s.requiredText("prefix");
        Optional<EtcdTls> tls = s.section("tls").map(ClusterConfig::tls);
        Optional<String> user = s.text("user");
        Secret password = secrets.read(s, "password", "");
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
        checkTransport(s.path(), etcd, tls);
        return new ClusterConfig(etcd, name, prefix, tls, login(s.path(), user, password));
    }

    /**
     * All URLs https with {@code tls:}, or all http without: etcd serves its clients one way, and an
     * https URL is only as safe as the CA it is checked against. The JVM's default trust store is not
     * used: etcd's certificates come from the operator's own CA, which a default store would not hold,
     * and trusting every public CA would accept any certificate bought for the name.
     */
    private static void checkTransport(String path, List<URI> etcd, Optional<EtcdTls> tls) {
        long https = etcd.stream().filter(u -> HTTPS.equals(u.getScheme())).count();
        if (https > 0 && https < etcd.size()) {
            throw new ConfigException(path + ".etcd: mixes http:// and https:// URLs; etcd serves its clients one "
                    + "way: write them all https://… (with tls: {ca: FILE}) or all http://…");
        }
        if (https > 0 && tls.isEmpty()) {
            throw new ConfigException(path + ".tls: the etcd URLs are https://, so give tls: {ca: FILE}, the CA "
                    + "certificate (PEM) that signed etcd's certificate (its --cert-file)");
        }
        if (https == 0 && tls.isPresent()) {
            throw new ConfigException(path + ".tls: given, but the etcd URLs are http://; write them https://… "
                    + "to use TLS toward etcd, or remove tls");
        }
    }

    private static EtcdTls tls(YamlSection t) {
        Optional<String> ca = t.text("ca");
        Optional<String> cert = t.text("cert");
        Optional<String> key = t.text("key");
        t.rejectUnknownKeys();
        if (ca.isEmpty()) {
            throw new ConfigException(t.path() + ".ca is required: the CA certificate (PEM) that signed etcd's "
                    + "certificate, e.g. ca: /etc/sluice/etcd-ca.pem");
        }
        if (cert.isPresent() != key.isPresent()) {
            throw new ConfigException(t.path() + ": give both cert and key (this instance's client certificate and "
                    + "its key, PEM, for an etcd started with --client-cert-auth), or neither");
        }
        return new EtcdTls(ca.get(), cert, key);
    }

    private static Optional<EtcdLogin> login(String path, Optional<String> user, Secret password) {
        if (user.isEmpty() && password.isEmpty()) {
            return Optional.empty();
        }
        if (user.isEmpty() || user.get().isEmpty()) {
            throw new ConfigException(path + ".user: a password is given without the etcd user it is for; add "
                    + "user: NAME, or remove the password");
        }
        if (password.isEmpty()) {
            throw new ConfigException(path + ".password: the etcd user '" + user.get() + "' needs its password: "
                    + "give password: \"${VARIABLE}\" or password-file: FILE (or remove the user)");
        }
        return Optional.of(new EtcdLogin(user.get(), password));
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
        throw new ConfigException(path + ": '" + text + "' is not an etcd client URL; write e.g. http://10.0.0.5:2379 "
                + "(or https://10.0.0.5:2379 with tls:)");
    }
}
