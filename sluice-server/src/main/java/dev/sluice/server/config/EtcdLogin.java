package dev.sluice.server.config;

/**
 * etcd's own authentication ({@code cluster.user} and {@code cluster.password}, for an etcd with
 * {@code auth enable}; BEHAVIOUR §11). The password is a {@link Secret}: never written back nor shown.
 */
public record EtcdLogin(String user, Secret password) {
}
