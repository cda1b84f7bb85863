// Read-your-writes client for the Go driver (go-sql-driver/mysql, Debian
// golang-github-go-sql-driver-mysql-dev) through database/sql; the protocol is in ../README.md.
// Queries with arguments go through the driver's default path: server-side prepared statements.
package main

import (
	"bufio"
	"context"
	"database/sql"
	"fmt"
	"os"
	"sort"
	"strconv"
	"strings"

	"github.com/go-sql-driver/mysql"
)

const (
	readSQL  = "SELECT v, @@server_id FROM ryw WHERE k = ?"
	writeSQL = "UPDATE ryw SET v = ? WHERE k = ?"
)

type tally struct {
	reads, stale, errors, noToken int
	servers                       map[int64]int
}

func (t *tally) fail(err error) {
	t.errors++
	fmt.Fprintln(os.Stderr, "go:", err)
}

func (t *tally) read(ctx context.Context, conn *sql.Conn, hint, key string, expected int64, exact bool) {
	var value, serverID int64
	var err error
	if hint == "" {
		err = conn.QueryRowContext(ctx, readSQL, key).Scan(&value, &serverID)
	} else {
		// The hint travels as plain text, as the token's users send it.
		query := hint + strings.Replace(readSQL, "?", "'"+key+"'", 1)
		err = conn.QueryRowContext(ctx, query).Scan(&value, &serverID)
	}
	if err != nil {
		t.fail(err)
		return
	}
	t.reads++
	t.servers[serverID]++
	if (exact && value != expected) || (!exact && value < expected) {
		t.stale++
	}
}

func (t *tally) line() string {
	ids := make([]int64, 0, len(t.servers))
	for id := range t.servers {
		ids = append(ids, id)
	}
	sort.Slice(ids, func(i, j int) bool { return ids[i] < ids[j] })
	parts := make([]string, 0, len(ids))
	for _, id := range ids {
		parts = append(parts, fmt.Sprintf("%d:%d", id, t.servers[id]))
	}
	return fmt.Sprintf("reads=%d stale=%d errors=%d no_token=%d servers=%s\n",
		t.reads, t.stale, t.errors, t.noToken, strings.Join(parts, ","))
}

func main() {
	if len(os.Args) != 10 {
		fmt.Fprintln(os.Stderr, "usage: ryw MODE HOST PORT USER PASSWORD DATABASE KEY COUNT RESULT_FILE")
		os.Exit(2)
	}
	mode, host, port, user, password, database, key := os.Args[1], os.Args[2], os.Args[3], os.Args[4], os.Args[5], os.Args[6], os.Args[7]
	count, err := strconv.Atoi(os.Args[8])
	if err != nil {
		fmt.Fprintln(os.Stderr, "go: COUNT:", err)
		os.Exit(2)
	}
	cfg := mysql.NewConfig()
	cfg.User, cfg.Passwd, cfg.Net, cfg.Addr, cfg.DBName = user, password, "tcp", host+":"+port, database
	db, err := sql.Open("mysql", cfg.FormatDSN())
	if err != nil {
		fmt.Fprintln(os.Stderr, "go:", err)
		os.Exit(1)
	}
	defer db.Close()
	ctx := context.Background()
	// database/sql hands out pooled connections; Conn pins one, as "one connection" means.
	connect := func() *sql.Conn {
		conn, err := db.Conn(ctx)
		if err != nil {
			fmt.Fprintln(os.Stderr, "go:", err)
			os.Exit(1)
		}
		return conn
	}
	t := &tally{servers: map[int64]int{}}
	switch mode {
	case "session", "global":
		writer := connect()
		reader := writer
		if mode == "global" {
			reader = connect()
		}
		for i := int64(1); i <= int64(count); i++ {
			if _, err := writer.ExecContext(ctx, writeSQL, i, key); err != nil {
				t.fail(err)
				continue
			}
			t.read(ctx, reader, "", key, i, mode == "session")
		}
	case "token-write":
		conn := connect()
		in := bufio.NewScanner(os.Stdin)
		for i := 1; i <= count; i++ {
			token := "-"
			if _, err := conn.ExecContext(ctx, writeSQL, i, key); err != nil {
				t.fail(err)
			} else {
				var gtid sql.NullString
				if err := conn.QueryRowContext(ctx, "SELECT sluice_last_gtid()").Scan(&gtid); err != nil {
					t.fail(err)
				} else if !gtid.Valid || gtid.String == "" {
					t.noToken++
				} else {
					token = gtid.String
				}
			}
			fmt.Printf("%d %s\n", i, token)
			if !in.Scan() {
				break
			}
		}
		fmt.Println("end")
	case "token-read":
		conn := connect()
		in := bufio.NewScanner(os.Stdin)
		for in.Scan() {
			fields := strings.Fields(in.Text())
			if len(fields) != 2 {
				break
			}
			i, _ := strconv.ParseInt(fields[0], 10, 64)
			hint := ""
			if fields[1] == "-" {
				t.noToken++
			} else {
				hint = "/*CONSISTENT_WITH=" + fields[1] + "*/ "
			}
			t.read(ctx, conn, hint, key, i, false)
			fmt.Println("ok")
		}
	default:
		fmt.Fprintf(os.Stderr, "go: unknown mode '%s'\n", mode)
		os.Exit(2)
	}
	if err := os.WriteFile(os.Args[9], []byte(t.line()), 0o644); err != nil {
		fmt.Fprintln(os.Stderr, "go:", err)
		os.Exit(1)
	}
}
