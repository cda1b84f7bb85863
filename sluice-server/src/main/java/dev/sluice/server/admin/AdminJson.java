package dev.sluice.server.admin;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.json.JsonMapper;
import java.io.IOException;

/**
 * The JSON dialect of the admin API, shared by the server and the CLI. Strict on input — a
 * duplicated key or trailing garbage in a change is refused rather than half-read, because a
 * misread change to a live proxy is worse than a refused one — and tolerant of fields it does not
 * know on output, so that an older CLI can read a newer server's DescribeDBProxy.
 */
public final class AdminJson {
    /** Maps the description records to camelCase JSON and back; pretty-printed for curl users. */
    public static final ObjectMapper MAPPER = JsonMapper.builder()
            .enable(SerializationFeature.INDENT_OUTPUT)
            .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS)
            .disable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES)
            .enable(JsonParser.Feature.STRICT_DUPLICATE_DETECTION)
            .build();

    private AdminJson() {
    }

    /** A request body as a JSON object; an {@link AdminException} (400) that says what is wrong otherwise. */
    public static JsonNode object(byte[] body, String example) {
        if (body.length == 0) {
            throw new AdminException(AdminException.BAD_REQUEST, "the request needs a JSON body, e.g. " + example);
        }
        JsonNode node;
        try {
            node = MAPPER.readTree(body);
        } catch (JsonProcessingException e) {
            throw new AdminException(AdminException.BAD_REQUEST, "the body is not valid JSON: "
                    + e.getOriginalMessage());
        } catch (IOException e) {
            throw new AdminException(AdminException.BAD_REQUEST, "the body cannot be read: " + e.getMessage());
        }
        if (node == null || !node.isObject()) {
            throw new AdminException(AdminException.BAD_REQUEST, "the body must be a JSON object, e.g. " + example);
        }
        return node;
    }

    /** {@code value} as JSON bytes (UTF-8). */
    public static byte[] bytes(Object value) {
        try {
            return MAPPER.writeValueAsBytes(value);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("cannot write " + value.getClass().getSimpleName() + " as JSON", e);
        }
    }
}
