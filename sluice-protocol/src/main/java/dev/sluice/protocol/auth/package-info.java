/**
 * Authentication plugins' arithmetic: mysql_native_password (including the stage1 recovery
 * that lets a proxy log in to backends without the password) and caching_sha2_password.
 */
package dev.sluice.protocol.auth;
