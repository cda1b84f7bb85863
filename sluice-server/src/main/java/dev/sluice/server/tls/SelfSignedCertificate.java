package dev.sluice.server.tls;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.cert.CertificateExpiredException;
import java.security.cert.CertificateNotYetValidException;
import java.security.cert.X509Certificate;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The certificate Sluice shows clients when none is configured: an RSA key and a self-signed
 * certificate for {@code localhost}, {@code 127.0.0.1} and {@code ::1}, made at the first start by
 * the JDK's own {@code keytool} (no extra library) into a PKCS#12 file, and reused at every later
 * start so that clients that pinned it keep working. The certificate is also written as PEM, for
 * clients that want to verify it ({@code mariadb --ssl-ca=… --ssl-verify-server-cert}).
 *
 * <p>Several Sluice processes may share the directory (tests): the file is generated under a
 * temporary name and linked into place, which fails if it is there already; whoever loses the race
 * uses the winner's file.
 *
 * @param keyStore the PKCS#12 file
 * @param certificatePem the certificate alone, PEM
 * @param store the loaded key store (alias {@link #ALIAS}, password {@link #STORE_PASSWORD})
 */
public record SelfSignedCertificate(Path keyStore, Path certificatePem, KeyStore store) {
    private static final Logger LOG = LoggerFactory.getLogger(SelfSignedCertificate.class);
    public static final String ALIAS = "sluice";
    /**
     * PKCS#12 wants a password; it protects nothing here (the file's permissions do), so it is a
     * constant rather than a second secret to keep.
     */
    public static final char[] STORE_PASSWORD = "sluice-self-signed".toCharArray();
    static final String KEY_STORE_FILE = "sluice-self-signed.p12";
    static final String CERTIFICATE_FILE = "sluice-self-signed.pem";
    private static final int VALIDITY_DAYS = 3650;
    private static final int KEY_BITS = 2048;
    private static final long KEYTOOL_TIMEOUT_SECONDS = 120;
    private static final int PEM_LINE = 64;

    /** Loads the pair kept in {@code dir}, or makes it there. */
    public static SelfSignedCertificate loadOrCreate(Path dir) {
        try {
            createPrivateDirectory(dir);
            Path file = dir.resolve(KEY_STORE_FILE);
            if (Files.exists(file)) {
                KeyStore store = load(file);
                if (isCurrent(store)) {
                    return withPem(dir, file, store);
                }
                LOG.warn("the self-signed certificate in {} has expired; making a new one", file);
                Path fresh = generate(dir);
                Files.move(fresh, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
            } else {
                Path fresh = generate(dir);
                try {
                    // A new name for the finished file, which fails if it exists (rename would replace it).
                    Files.createLink(file, fresh);
                    LOG.info("made a self-signed TLS certificate for clients in {}", file);
                } catch (FileAlreadyExistsException raced) {
                    // Another process got there first: use its pair.
                } catch (UnsupportedOperationException noHardLinks) {
                    Files.move(fresh, file);
                } finally {
                    Files.deleteIfExists(fresh);
                }
            }
            return withPem(dir, file, load(file));
        } catch (IOException | GeneralSecurityException e) {
            throw new IllegalStateException("cannot make or read the self-signed TLS certificate in " + dir + ": "
                    + e.getMessage() + "; give tls: {cert: FILE, key: FILE} or another tls.self-signed-dir", e);
        }
    }

    public X509Certificate certificate() {
        try {
            return (X509Certificate) store.getCertificate(ALIAS);
        } catch (java.security.KeyStoreException e) {
            throw new IllegalStateException(e);
        }
    }

    private static void createPrivateDirectory(Path dir) throws IOException {
        if (Files.isDirectory(dir)) {
            return;
        }
        Files.createDirectories(dir);
        try {
            Files.setPosixFilePermissions(dir, PosixFilePermissions.fromString("rwx------"));
        } catch (UnsupportedOperationException e) {
            // Not a POSIX file system: the directory keeps the default permissions.
        }
    }

    private static KeyStore load(Path file) throws IOException, GeneralSecurityException {
        KeyStore ks = KeyStore.getInstance("PKCS12");
        try (InputStream in = Files.newInputStream(file)) {
            ks.load(in, STORE_PASSWORD);
        }
        if (!ks.isKeyEntry(ALIAS)) {
            throw new GeneralSecurityException(file + " has no key '" + ALIAS + "'");
        }
        return ks;
    }

    private static boolean isCurrent(KeyStore store) throws GeneralSecurityException {
        try {
            ((X509Certificate) store.getCertificate(ALIAS)).checkValidity();
            return true;
        } catch (CertificateExpiredException | CertificateNotYetValidException e) {
            return false;
        }
    }

    /** Runs keytool into a new file in {@code dir}; returns that file. */
    private static Path generate(Path dir) throws IOException {
        Path tmp = dir.resolve(KEY_STORE_FILE + "." + ProcessHandle.current().pid() + "." + System.nanoTime() + ".tmp");
        Path keytool = Path.of(System.getProperty("java.home"), "bin", "keytool");
        String password = new String(STORE_PASSWORD);
        List<String> command = new ArrayList<>(List.of(keytool.toString(), "-genkeypair", "-noprompt",
                "-alias", ALIAS, "-keyalg", "RSA", "-keysize", Integer.toString(KEY_BITS), "-sigalg", "SHA256withRSA",
                "-validity", Integer.toString(VALIDITY_DAYS), "-dname", "CN=Sluice self-signed",
                "-ext", "SAN=dns:localhost,ip:127.0.0.1,ip:::1",
                "-storetype", "PKCS12", "-keystore", tmp.toString(), "-storepass", password, "-keypass", password));
        Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
        String output;
        try {
            if (!p.waitFor(KEYTOOL_TIMEOUT_SECONDS, TimeUnit.SECONDS)) {
                p.destroyForcibly();
                throw new IOException(keytool + " did not finish within " + KEYTOOL_TIMEOUT_SECONDS + " s");
            }
            output = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).trim();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            p.destroyForcibly();
            throw new IOException("interrupted while running " + keytool, e);
        }
        if (p.exitValue() != 0 || !Files.exists(tmp)) {
            Files.deleteIfExists(tmp);
            throw new IOException(keytool + " failed (exit " + p.exitValue() + "): " + output);
        }
        return tmp;
    }

    private static SelfSignedCertificate withPem(Path dir, Path file, KeyStore store)
            throws IOException, GeneralSecurityException {
        Path pem = dir.resolve(CERTIFICATE_FILE);
        String text = pem(((X509Certificate) store.getCertificate(ALIAS)).getEncoded());
        if (!Files.exists(pem) || !Files.readString(pem).equals(text)) {
            Path tmp = dir.resolve(CERTIFICATE_FILE + "." + ProcessHandle.current().pid() + "." + System.nanoTime());
            Files.writeString(tmp, text);
            Files.move(tmp, pem, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
        }
        return new SelfSignedCertificate(file, pem, store);
    }

    static String pem(byte[] der) {
        String body = Base64.getMimeEncoder(PEM_LINE, "\n".getBytes(StandardCharsets.US_ASCII)).encodeToString(der);
        return "-----BEGIN CERTIFICATE-----\n" + body + "\n-----END CERTIFICATE-----\n";
    }
}
