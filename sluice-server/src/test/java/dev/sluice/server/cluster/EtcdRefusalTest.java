package dev.sluice.server.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import io.grpc.Status;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletionException;
import org.junit.jupiter.api.Test;

/** Which failed etcd calls are refusals (a configuration to fix), and what they tell the operator. */
class EtcdRefusalTest {
    private static final Optional<String> USER = Optional.of("sluice");
    private static final String PREFIX = "/sluice/prod";

    private static Optional<String> refusal(Optional<String> user, Status... chain) {
        return EtcdRefusal.of(List.of(chain), user, PREFIX);
    }

    @Test
    void aWrongPasswordNamesTheUserAndTheKeysToCheck() {
        // What jetcd 0.8.4 gives for a wrong password: a bare UNAUTHENTICATED, etcd's words in its cause.
        Throwable jetcd = new CompletionException(Status.UNAUTHENTICATED.withCause(Status.INVALID_ARGUMENT
                .withDescription("etcdserver: authentication failed, invalid user ID or password").asRuntimeException())
                .asRuntimeException());
        assertThat(EtcdRefusal.of(jetcd, USER, PREFIX)).hasValueSatisfying(why -> assertThat(why)
                .contains("etcd refused the user 'sluice' or its password")
                .contains("authentication failed, invalid user ID or password")
                .contains("check cluster.user and cluster.password"));
    }

    @Test
    void eachRefusalSaysWhatToDo() {
        List<Object[]> table = List.of(
                new Object[] {Optional.empty(), Status.PERMISSION_DENIED.withDescription("etcdserver: permission denied"),
                    "refuses an instance without a user (etcd: etcdserver: permission denied); give cluster.user"},
                new Object[] {Optional.empty(), Status.INVALID_ARGUMENT.withDescription("etcdserver: user name is empty"),
                    "refuses an instance without a user"},
                new Object[] {USER, Status.PERMISSION_DENIED.withDescription("etcdserver: permission denied"),
                    "etcd denies the user 'sluice' the keys under /sluice/prod/ (etcd: etcdserver: permission denied); "
                            + "grant it a role with readwrite on that prefix"},
                new Object[] {USER, Status.UNAUTHENTICATED.withDescription("etcdserver: authentication is not enabled"),
                    "etcd has no authentication enabled, but cluster.user is given"},
                new Object[] {USER, Status.UNAUTHENTICATED.withDescription("etcdserver: invalid auth token"),
                    "etcd refused this instance's credentials (etcd: etcdserver: invalid auth token)"});
        for (Object[] row : table) {
            @SuppressWarnings("unchecked")
            Optional<String> user = (Optional<String>) row[0];
            Status status = (Status) row[1];
            assertThat(refusal(user, status)).as(status.toString()).hasValueSatisfying(why ->
                    assertThat(why).contains((String) row[2]));
        }
    }

    @Test
    void anOutageOrAnEtcdErrorIsNoRefusal() {
        assertThat(refusal(USER, Status.UNAVAILABLE.withDescription("io exception"))).isEmpty();
        assertThat(refusal(USER, Status.DEADLINE_EXCEEDED)).isEmpty();
        assertThat(refusal(USER, Status.NOT_FOUND.withDescription("etcdserver: requested lease not found"))).isEmpty();
        assertThat(EtcdRefusal.of(new IllegalStateException("no status at all"), USER, PREFIX)).isEmpty();
    }
}
