package dev.sluice.server.auth;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class AccountStatementsTest {

    @ParameterizedTest
    @ValueSource(strings = {"CREATE USER 'a'@'%' IDENTIFIED BY 'x'", "create or replace  user a", "ALTER USER a IDENTIFIED BY 'y'",
            "DROP USER IF EXISTS a", "RENAME USER a TO b", "SET PASSWORD FOR a = PASSWORD('z')", "set\tpassword = 'z'",
            "GRANT SELECT ON *.* TO a", "REVOKE ALL ON *.* FROM a", "/*FORCE_MASTER*/ DROP USER a",
            "  -- comment\n  /* two */ /* comments */ CREATE USER a", "# line\nGRANT ALL ON test.* TO a"})
    void accountStatementsAreRecognised(String sql) {
        assertThat(AccountStatements.changesAccounts(sql)).isTrue();
    }

    @ParameterizedTest
    @ValueSource(strings = {"CREATE TABLE users (id INT)", "DROP TABLE user", "ALTER TABLE user ADD c INT",
            "CREATE USERS", "SET NAMES utf8", "GRANTS", "SELECT 'CREATE USER a'", "/* CREATE USER a */ SELECT 1",
            "CREATE DATABASE user_data", "SET passwords = 1", "", "/* unterminated"})
    void otherStatementsAreNot(String sql) {
        assertThat(AccountStatements.changesAccounts(sql)).isFalse();
    }
}
