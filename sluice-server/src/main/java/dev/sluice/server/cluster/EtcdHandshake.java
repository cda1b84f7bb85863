package dev.sluice.server.cluster;

import dev.sluice.server.config.EtcdTls;
import java.io.IOException;
import java.io.InputStream;
import java.net.ConnectException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketException;
import java.net.SocketTimeoutException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.security.cert.CertPathBuilderException;
import java.security.cert.CertificateException;
import java.time.Duration;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLException;
import javax.net.ssl.SSLParameters;
import javax.net.ssl.SSLSocket;

/**
 * One TLS connection to an etcd client URL with the instance's certificates, to say why etcd
 * refuses them. jetcd cannot: its gRPC channel waits for a connection that works, retrying a failed
 * handshake (a wrong CA, a missing client certificate) until the call's time is up, and then only
 * says that the call had no answer (BEHAVIOUR §11).
 *
 * <p>The handshake checks etcd's certificate against {@code cluster.tls.ca} and the URL's host, as
 * gRPC does. Under TLS 1.3 etcd refuses a client certificate only after the handshake: it sends an
 * alert and closes the connection. So the check also asks etcd for {@code /version} (no
 * authentication needed) and reads the answer's first byte; a connection closed after the handshake
 * and before any answer — the alert may be lost with it — is that refusal too.
 */
final class EtcdHandshake {
    private static final byte[] VERSION_REQUEST = ("GET /version HTTP/1.1\r\nHost: etcd\r\nConnection: close\r\n\r\n")
            .getBytes(StandardCharsets.US_ASCII);
    private static final String HOST_IDENTIFICATION = "HTTPS";

    private final SSLContext context;
    private final EtcdTls tls;
    private final Path ca;

    EtcdHandshake(SSLContext context, EtcdTls tls, Path ca) {
        this.context = context;
        this.tls = tls;
        this.ca = ca;
    }

    /** What a connection to {@code url} found. */
    sealed interface Outcome {
        /** etcd took the connection and the certificates. */
        record Accepted() implements Outcome { }

        /** etcd answered TLS and refused this instance, or is not who the CA vouches for. */
        record Refused(String why) implements Outcome { }

        /** No connection or no answer: an outage, not a configuration mistake. */
        record Unreachable(String why) implements Outcome { }
    }

    Outcome check(URI url, Duration timeout) {
        int millis = (int) timeout.toMillis();
        try (Socket raw = new Socket()) {
            raw.connect(new InetSocketAddress(url.getHost(), url.getPort()), millis);
            raw.setSoTimeout(millis);
            try (SSLSocket s = (SSLSocket) context.getSocketFactory().createSocket(raw, url.getHost(), url.getPort(),
                    false)) {
                SSLParameters p = s.getSSLParameters();
                p.setEndpointIdentificationAlgorithm(HOST_IDENTIFICATION);
                s.setSSLParameters(p);
                s.startHandshake();
                return afterHandshake(url, s);
            }
        } catch (ConnectException | SocketTimeoutException e) {
            return new Outcome.Unreachable(e.getMessage() == null ? e.toString() : e.getMessage());
        } catch (SSLException e) {
            // A connection reset mid-handshake is the network's doing (or etcd restarting), not a verdict.
            return has(e, SocketException.class) ? new Outcome.Unreachable(messages(e))
                    : new Outcome.Refused(why(url, e));
        } catch (IOException e) {
            return new Outcome.Unreachable(e.getMessage() == null ? e.toString() : e.getMessage());
        }
    }

    private Outcome afterHandshake(URI url, SSLSocket s) {
        try {
            s.getOutputStream().write(VERSION_REQUEST);
            s.getOutputStream().flush();
            InputStream in = s.getInputStream();
            if (in.read() >= 0) {
                return new Outcome.Accepted();
            }
        } catch (SSLException e) {
            return new Outcome.Refused(why(url, e));
        } catch (SocketTimeoutException e) {
            return new Outcome.Unreachable("no answer after the TLS handshake: " + e.getMessage());
        } catch (IOException e) {
            // Closed under the request (broken pipe, reset): as below.
        }
        return new Outcome.Refused(clientCertificateRefused(url, "etcd closed the connection right after the TLS "
                + "handshake, before answering"));
    }

    private String clientCertificateRefused(URI url, String said) {
        return tls.hasClientCertificate()
                ? "etcd at " + url + " refused this instance's client certificate (" + tls.cert().get() + "): it "
                        + "must be signed by the CA etcd trusts (--trusted-ca-file) and allow client authentication ("
                        + said + ")"
                : "etcd at " + url + " requires a client certificate (--client-cert-auth): give cluster.tls.cert "
                        + "and cluster.tls.key, signed by the CA etcd trusts (--trusted-ca-file) (" + said + ")";
    }

    /** What the operator should check, from what the TLS implementation said. */
    private String why(URI url, SSLException e) {
        String said = messages(e);
        if (has(e, CertPathBuilderException.class) || said.contains("PKIX path")) {
            return "etcd's certificate at " + url + " is not signed by cluster.tls.ca (" + ca + "); give the CA "
                    + "certificate that signed etcd's --cert-file";
        }
        if (has(e, CertificateException.class) && said.contains("matching")) {
            return "etcd's certificate at " + url + " is not for " + url.getHost() + " (" + said + "); use the "
                    + "address or name its certificate is made for in cluster.etcd, or a certificate that names "
                    + url.getHost();
        }
        if (said.contains("bad_certificate") || said.contains("certificate_required") || said.contains("unknown_ca")) {
            return clientCertificateRefused(url, "TLS said: " + said);
        }
        if (said.contains("Unsupported or unrecognized SSL message") || said.contains("plaintext")) {
            return "etcd at " + url + " does not answer TLS: is it started with https client URLs and --cert-file? "
                    + "If it serves plain http, write http:// URLs and remove cluster.tls";
        }
        return "TLS with etcd at " + url + " failed: " + said;
    }

    private static boolean has(Throwable e, Class<? extends Throwable> type) {
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (type.isInstance(t)) {
                return true;
            }
        }
        return false;
    }

    private static String messages(Throwable e) {
        StringBuilder b = new StringBuilder();
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (t.getMessage() != null && b.indexOf(t.getMessage()) < 0) {
                b.append(b.length() == 0 ? "" : ": ").append(t.getMessage());
            }
        }
        return b.toString();
    }
}
