<?php
// Read-your-writes client for PHP mysqli (mysqlnd); the protocol is in ../README.md.
declare(strict_types=1);

mysqli_report(MYSQLI_REPORT_ERROR | MYSQLI_REPORT_STRICT);

[, $mode, $host, $port, $user, $password, $database, $key, $count, $resultFile] = $argv;
$count = (int) $count;

final class Tally
{
    public int $reads = 0;
    public int $stale = 0;
    public int $errors = 0;
    public int $noToken = 0;
    /** @var array<string,int> */
    public array $servers = [];

    /** A prepared read (the usual mysqli way), or with $hinted a plain query carrying the hint. */
    public function read(mysqli $db, string $hint, string $key, int $expected, bool $exact): void
    {
        try {
            if ($hint === '') {
                $stmt = $db->prepare(READ);
                $stmt->bind_param('s', $key);
                $stmt->execute();
                $row = $stmt->get_result()->fetch_row();
                $stmt->close();
            } else {
                $row = $db->query($hint . str_replace('?', "'" . $db->real_escape_string($key) . "'", READ))->fetch_row();
            }
            $this->reads++;
            $this->servers[(string) $row[1]] = ($this->servers[(string) $row[1]] ?? 0) + 1;
            $value = (int) $row[0];
            if ($exact ? $value !== $expected : $value < $expected) {
                $this->stale++;
            }
        } catch (mysqli_sql_exception $e) {
            $this->error($e);
        }
    }

    public function error(Throwable $e): void
    {
        $this->errors++;
        fwrite(STDERR, "php: {$e->getMessage()}\n");
    }

    public function write(string $file): void
    {
        ksort($this->servers);
        $servers = implode(',', array_map(fn ($id, $n) => "$id:$n", array_keys($this->servers), $this->servers));
        file_put_contents($file, "reads={$this->reads} stale={$this->stale} errors={$this->errors} "
            . "no_token={$this->noToken} servers=$servers\n");
    }
}

function connect(): mysqli
{
    global $host, $user, $password, $database, $port;
    return new mysqli($host, $user, $password, $database, (int) $port);
}

function write(mysqli $db, string $key, int $value): void
{
    $stmt = $db->prepare('UPDATE ryw SET v = ? WHERE k = ?');
    $stmt->bind_param('is', $value, $key);
    $stmt->execute();
    $stmt->close();
}

const READ = 'SELECT v, @@server_id FROM ryw WHERE k = ?';

$tally = new Tally();
switch ($mode) {
    case 'session':
        $db = connect();
        for ($i = 1; $i <= $count; $i++) {
            try {
                write($db, $key, $i);
            } catch (mysqli_sql_exception $e) {
                $tally->error($e);
                continue;
            }
            $tally->read($db, '', $key, $i, true);
        }
        break;
    case 'global':
        $writer = connect();
        $reader = connect();
        for ($i = 1; $i <= $count; $i++) {
            try {
                write($writer, $key, $i);
            } catch (mysqli_sql_exception $e) {
                $tally->error($e);
                continue;
            }
            $tally->read($reader, '', $key, $i, false);
        }
        break;
    case 'token-write':
        $db = connect();
        for ($i = 1; $i <= $count; $i++) {
            $token = '-';
            try {
                write($db, $key, $i);
                $gtid = $db->query('SELECT sluice_last_gtid()')->fetch_row()[0];
                if ($gtid === null || $gtid === '') {
                    $tally->noToken++;
                } else {
                    $token = $gtid;
                }
            } catch (mysqli_sql_exception $e) {
                $tally->error($e);
            }
            fwrite(STDOUT, "$i $token\n");
            fflush(STDOUT);
            if (fgets(STDIN) === false) {
                break;
            }
        }
        fwrite(STDOUT, "end\n");
        break;
    case 'token-read':
        $db = connect();
        while (($line = fgets(STDIN)) !== false && trim($line) !== 'end') {
            [$i, $token] = explode(' ', trim($line));
            $hint = $token === '-' ? '' : "/*CONSISTENT_WITH=$token*/ ";
            if ($token === '-') {
                $tally->noToken++;
            }
            $tally->read($db, $hint, $key, (int) $i, false);
            fwrite(STDOUT, "ok\n");
            fflush(STDOUT);
        }
        break;
    default:
        fwrite(STDERR, "php: unknown mode '$mode'\n");
        exit(2);
}
$tally->write($resultFile);
