package dev.sluice.server.config;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;
import java.util.function.Function;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Reads a secret of the configuration from where it was given (see {@link Secret}). The
 * environment and the directory that relative file names start from are given, so that a test
 * can choose them and a configuration text without a file reads files from the working directory.
 */
public final class SecretResolver {
    private static final Pattern VARIABLE = Pattern.compile("\\$\\{([A-Za-z_][A-Za-z0-9_]*)}");
    /** A secret file is a few bytes; a bigger one is a mistake (a wrong path, a key file). */
    private static final long MAX_FILE_SIZE = 64 * 1024;

    private final Function<String, String> environment;
    private final Optional<Path> directory;

    public SecretResolver(Function<String, String> environment, Optional<Path> directory) {
        this.environment = environment;
        this.directory = directory;
    }

    /** The process's environment; relative files from {@code directory} (else the working directory). */
    public static SecretResolver ofProcess(Optional<Path> directory) {
        return new SecretResolver(System::getenv, directory);
    }

    /**
     * The secret at {@code key} of {@code section}, or at {@code key-file}; {@code fallback} when
     * neither is given. Giving both is an error: which one was meant cannot be guessed.
     */
    Secret read(YamlSection section, String key, String fallback) {
        Optional<String> text = section.text(key);
        Optional<String> file = section.text(key + "-file");
        String path = section.path().isEmpty() ? key : section.path() + "." + key;
        if (text.isPresent() && file.isPresent()) {
            throw new ConfigException(path + ": give " + key + " or " + key + "-file, not both");
        }
        if (file.isPresent()) {
            return new Secret(fileContent(path + "-file", file.get()), Secret.Origin.FILE, file.get());
        }
        if (text.isEmpty()) {
            return Secret.literal(fallback);
        }
        Matcher m = VARIABLE.matcher(text.get());
        if (!m.matches()) {
            return Secret.literal(text.get());
        }
        String value = environment.apply(m.group(1));
        if (value == null) {
            throw new ConfigException(path + ": the environment variable " + m.group(1)
                    + " is not set; set it in Sluice's environment or give the " + key + " another way");
        }
        return new Secret(value, Secret.Origin.ENVIRONMENT, m.group(1));
    }

    private String fileContent(String path, String file) {
        Path p = ConfigLoader.resolve(directory, file);
        try {
            if (Files.size(p) > MAX_FILE_SIZE) {
                throw new ConfigException(path + ": " + p + " is larger than " + MAX_FILE_SIZE
                        + " bytes; is it the secret's file?");
            }
            String content = Files.readString(p, StandardCharsets.UTF_8);
            return content.endsWith("\r\n") ? content.substring(0, content.length() - 2)
                    : content.endsWith("\n") ? content.substring(0, content.length() - 1) : content;
        } catch (IOException e) {
            throw new ConfigException(path + ": cannot read " + p + ": " + e.getMessage(), e);
        }
    }
}
