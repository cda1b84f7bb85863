// Read-your-writes client for node mysql2 (npm, pinned in package.json / package-lock.json);
// the protocol is in ../README.md. Uses conn.query with placeholders, mysql2's usual path.
'use strict';

const fs = require('fs');
const readline = require('readline');
const mysql = require('mysql2/promise');

const READ = 'SELECT v, @@server_id AS server_id FROM ryw WHERE k = ?';
const WRITE = 'UPDATE ryw SET v = ? WHERE k = ?';

class Tally {
  constructor() {
    this.reads = 0;
    this.stale = 0;
    this.errors = 0;
    this.noToken = 0;
    this.servers = new Map();
  }

  async read(conn, hint, key, expected, exact) {
    let rows;
    try {
      [rows] = await conn.query(hint + READ, [key]);
    } catch (e) {
      this.fail(e);
      return;
    }
    const value = Number(rows[0].v);
    const serverId = Number(rows[0].server_id);
    this.reads++;
    this.servers.set(serverId, (this.servers.get(serverId) || 0) + 1);
    if (exact ? value !== expected : value < expected) {
      this.stale++;
    }
  }

  fail(e) {
    this.errors++;
    process.stderr.write(`node: ${e.message}\n`);
  }

  line() {
    const servers = [...this.servers.entries()].sort((a, b) => a[0] - b[0]).map(([id, n]) => `${id}:${n}`);
    return `reads=${this.reads} stale=${this.stale} errors=${this.errors} no_token=${this.noToken} servers=${servers.join(',')}\n`;
  }
}

async function main(argv) {
  if (argv.length !== 9) {
    process.stderr.write('usage: ryw.js MODE HOST PORT USER PASSWORD DATABASE KEY COUNT RESULT_FILE\n');
    return 2;
  }
  const [mode, host, port, user, password, database, key, countText, resultFile] = argv;
  const count = Number(countText);
  const connect = () => mysql.createConnection({ host, port: Number(port), user, password, database });
  const tally = new Tally();
  const lines = readline.createInterface({ input: process.stdin })[Symbol.asyncIterator]();
  const connections = [];
  const open = async () => {
    const conn = await connect();
    connections.push(conn);
    return conn;
  };

  if (mode === 'session' || mode === 'global') {
    const writer = await open();
    const reader = mode === 'session' ? writer : await open();
    for (let i = 1; i <= count; i++) {
      try {
        await writer.query(WRITE, [i, key]);
      } catch (e) {
        tally.fail(e);
        continue;
      }
      await tally.read(reader, '', key, i, mode === 'session');
    }
  } else if (mode === 'token-write') {
    const conn = await open();
    for (let i = 1; i <= count; i++) {
      let token = '-';
      try {
        await conn.query(WRITE, [i, key]);
        // By position: the column's name is the server's business (Sluice once ignored an alias).
        const [rows] = await conn.query({ sql: 'SELECT sluice_last_gtid()', rowsAsArray: true });
        const gtid = rows[0][0];
        if (gtid === null || gtid === undefined || gtid === '') {
          tally.noToken++;
        } else {
          token = String(gtid);
        }
      } catch (e) {
        tally.fail(e);
      }
      process.stdout.write(`${i} ${token}\n`);
      if ((await lines.next()).done) {
        break;
      }
    }
    process.stdout.write('end\n');
  } else if (mode === 'token-read') {
    const conn = await open();
    for (;;) {
      const next = await lines.next();
      if (next.done || next.value.trim() === 'end') {
        break;
      }
      const [i, token] = next.value.trim().split(' ');
      if (token === '-') {
        tally.noToken++;
      }
      const hint = token === '-' ? '' : `/*CONSISTENT_WITH=${token}*/ `;
      await tally.read(conn, hint, key, Number(i), false);
      process.stdout.write('ok\n');
    }
  } else {
    process.stderr.write(`node: unknown mode '${mode}'\n`);
    return 2;
  }
  await Promise.all(connections.map((c) => c.end()));
  fs.writeFileSync(resultFile, tally.line());
  return 0;
}

main(process.argv.slice(2)).then(
  (status) => process.exit(status),
  (e) => {
    process.stderr.write(`node: ${e.stack || e}\n`);
    process.exit(1);
  },
);
