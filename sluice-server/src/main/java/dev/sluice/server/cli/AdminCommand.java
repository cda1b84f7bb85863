package dev.sluice.server.cli;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import dev.sluice.server.admin.AdminJson;
import java.io.PrintWriter;
import java.util.concurrent.Callable;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;

/**
 * A command that talks to a running Sluice through its admin API. Exit codes: 0 done, 1 the
 * server refused (its message is printed as it is, on stderr), 2 bad command line (picocli's),
 * 3 the admin API could not be reached.
 */
abstract class AdminCommand implements Callable<Integer> {
    static final int OK = 0;
    static final int REFUSED = 1;
    static final int UNREACHABLE = 3;

    @Mixin
    AdminOptions options;

    @Spec
    CommandSpec spec;

    @Override
    public final Integer call() throws JsonProcessingException {
        PrintWriter out = spec.commandLine().getOut();
        PrintWriter err = spec.commandLine().getErr();
        try {
            run(options.client(), out);
            return OK;
        } catch (AdminCallException e) {
            err.println(e.getMessage());
            return REFUSED;
        } catch (AdminUnreachableException e) {
            err.println(e.getMessage());
            return UNREACHABLE;
        } finally {
            out.flush();
            err.flush();
        }
    }

    /** Does the call and prints its outcome (a table, or the raw JSON with {@code --json}). */
    abstract void run(AdminClient client, PrintWriter out)
            throws AdminCallException, AdminUnreachableException, JsonProcessingException;

    /** With {@code --json}, prints the body as the server sent it and says so. */
    boolean printedRaw(String body, PrintWriter out) {
        if (!options.json) {
            return false;
        }
        if (!body.isEmpty()) {
            out.println(body.strip());
        }
        return true;
    }

    static JsonNode tree(String body) throws JsonProcessingException {
        return AdminJson.MAPPER.readTree(body);
    }
}
