package dev.sluice.server.auth;

/**
 * What Sluice holds to log a client's user in to a backend. Never the password of a database
 * account unless the operator wrote it in the configuration: for {@code mysql_native_password}
 * accounts Sluice keeps only SHA1(password), recovered from the client's own login answer, which
 * is enough to answer any backend's challenge and is never stored on disk.
 */
public sealed interface Credential permits Credential.NativeHash, Credential.PlainPassword {

    /** SHA1(password): answers any {@code mysql_native_password} challenge. */
    record NativeHash(byte[] stage1) implements Credential {
        public NativeHash {
            stage1 = stage1.clone();
        }

        @Override
        public byte[] stage1() {
            return stage1.clone();
        }
    }

    /** A password from the configuration's {@code users:} list; answers every plugin. */
    record PlainPassword(byte[] password) implements Credential {
        public PlainPassword {
            password = password.clone();
        }

        @Override
        public byte[] password() {
            return password.clone();
        }
    }
}
