/**
 * The statement classifier: a byte-level lexer and the rules that turn a COM_QUERY text into a
 * {@link dev.sluice.routing.sql.Statement} (BEHAVIOUR §3). Entry point: {@link dev.sluice.routing.sql.SqlClassifier}.
 */
package dev.sluice.routing.sql;
