// Sluice dashboard: polls DescribeDBProxy (v1/proxy) every second, the consistency-wait figures of
// /metrics and the costliest query digests (v1/digests) every few seconds, and the charts' history
// (v1/history, charts.js) every step, and redraws. The tables' rates (QPS) are computed here, from
// the difference of the per-node, per-endpoint statement counters between two polls, so the server
// keeps no per-viewer state. Everything is built with DOM calls and textContent: names come from
// the configuration and are never interpreted as HTML.
'use strict';

const PROXY_URL = 'v1/proxy';
const METRICS_URL = 'metrics';
const DIGESTS_URL = 'v1/digests?order=total&limit=15';
const POLL_MS = 1000;
const METRICS_POLL_MS = 3000;
const WAIT_METRIC = 'sluice_consistency_wait_seconds';
const OUTCOMES = {
  'ok': 'replica in time',
  'timeout-primary': 'timeout → primary',
  'timeout-error': 'timeout → error',
};
const PALETTE = ['#2f6fde', '#e0802b', '#2a9d6f', '#b5499b', '#c9a227', '#5a6b7d', '#d1495b', '#3fa7c4'];

let nodeColors = new Map(); // node name -> colour, the same in the tables and the charts
let previous = null;        // {at, counters: Map("endpoint\u0000node" -> statements)}
let previousWaits = null;   // {at, counts: Map("endpoint\u0000outcome" -> count)}

function el(tag, attrs, ...children) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === null || v === undefined || v === false) continue;
    if (k === 'class') e.className = v;
    else if (k === 'width') e.style.width = v;
    else if (k === 'color') e.style.background = v;
    else e.setAttribute(k, v === true ? '' : String(v));
  }
  for (const c of children.flat()) {
    if (c === null || c === undefined) continue;
    e.append(c instanceof Node ? c : document.createTextNode(String(c)));
  }
  return e;
}

function fmtDuration(seconds) {
  if (seconds === null || seconds === undefined) return '–';
  const s = Math.floor(seconds);
  if (s < 60) return s + ' s';
  if (s < 3600) return Math.floor(s / 60) + ' m ' + (s % 60) + ' s';
  if (s < 86400) return Math.floor(s / 3600) + ' h ' + Math.floor((s % 3600) / 60) + ' m';
  return Math.floor(s / 86400) + ' d ' + Math.floor((s % 86400) / 3600) + ' h';
}

function fmtRate(r) {
  if (r === null || r === undefined || !isFinite(r)) return '–';
  return r >= 100 ? r.toFixed(0) : r >= 10 ? r.toFixed(1) : r.toFixed(2);
}

function key(a, b) {
  return a + '\u0000' + b;
}

// Statement counters of this poll, and the rate of each since the previous poll (null at first,
// and for a counter that went backwards: a node removed and added again starts from 0).
function rates(proxy, at) {
  const counters = new Map();
  for (const n of proxy.nodes) {
    for (const [ep, load] of Object.entries(n.endpoints || {})) {
      counters.set(key(ep, n.name), load.statements);
    }
  }
  const out = new Map();
  if (previous !== null && at > previous.at) {
    const dt = (at - previous.at) / 1000;
    for (const [k, v] of counters) {
      const before = previous.counters.get(k);
      out.set(k, before === undefined || v < before ? null : (v - before) / dt);
    }
  }
  previous = {at, counters};
  return out;
}

function sum(values) {
  let total = null;
  for (const v of values) {
    if (v !== null && v !== undefined) total = (total || 0) + v;
  }
  return total;
}

function badge(text, cls) {
  return el('span', {class: 'badge ' + cls}, text);
}

function colorOf(proxy) {
  const colors = new Map();
  proxy.nodes.forEach((n, i) => colors.set(n.name, PALETTE[i % PALETTE.length]));
  return colors;
}

function renderHeader(proxy) {
  document.getElementById('version').textContent = proxy.version ? 'v' + proxy.version : '';
  document.getElementById('uptime').textContent = 'up ' + fmtDuration(proxy.uptimeSeconds);
}

function renderNodes(proxy, rate, colors) {
  const rows = proxy.nodes.map(n => {
    const loads = Object.values(n.endpoints || {});
    const nodeRate = sum(Object.keys(n.endpoints || {}).map(ep => rate.get(key(ep, n.name))));
    return el('tr', {'data-node': n.name},
      el('th', {scope: 'row', class: 'name'}, el('span', {class: 'swatch', color: colors.get(n.name)}), n.name,
        n.zone ? el('span', {class: 'muted small'}, ' zone ' + n.zone) : null),
      el('td', {class: 'role'}, badge(n.role, 'role-' + n.role)),
      el('td', {class: 'state'}, badge(n.state, 'state-' + n.state), n.draining ? badge('draining', 'draining') : null),
      el('td', {class: 'readonly'}, n.readOnly ? 'ON' : 'OFF'),
      el('td', {class: 'replication replication-' + n.replication}, n.replication),
      el('td', {class: 'num lag'}, n.lagSeconds == null ? '–' : n.lagSeconds + ' s'),
      el('td', {class: 'gtid', title: n.gtidPosition || ''}, n.gtidPosition || '–'),
      el('td', {class: 'num sessions'}, sum(loads.map(l => l.activeSessions)) || 0),
      el('td', {class: 'num requests'}, sum(loads.map(l => l.activeRequests)) || 0),
      el('td', {class: 'num qps'}, fmtRate(nodeRate)));
  });
  document.querySelector('#nodes tbody').replaceChildren(...rows);
}

function renderEndpoint(ep, proxy, rate, colors) {
  const members = proxy.nodes.filter(n => n.endpoints && n.endpoints[ep.name]);
  const maxWeight = Math.max(1, ...members.map(n => n.endpoints[ep.name].weight));
  const epRate = sum(members.map(n => rate.get(key(ep.name, n.name))));
  const share = n => {
    const r = rate.get(key(ep.name, n.name));
    return epRate && r !== null && r !== undefined ? r / epRate : null;
  };
  const bar = el('div', {class: 'distribution', role: 'img',
      'aria-label': 'statement distribution of ' + ep.name},
    members.filter(n => share(n)).map(n => el('span', {class: 'segment', width: (share(n) * 100).toFixed(1) + '%',
      color: colors.get(n.name), title: n.name + ' ' + (share(n) * 100).toFixed(0) + '%'})));
  const rows = members.map(n => {
    const load = n.endpoints[ep.name];
    const s = share(n);
    return el('tr', {'data-node': n.name},
      el('th', {scope: 'row', class: 'name'}, el('span', {class: 'swatch', color: colors.get(n.name)}), n.name),
      el('td', {class: 'num weight'},
        el('span', {class: 'weightbar'}, el('span', {width: (100 * load.weight / maxWeight).toFixed(0) + '%'})),
        load.weight),
      el('td', {class: 'readable-flag'}, load.readable ? badge('yes', 'readable') : badge('no', 'unreadable')),
      el('td', {class: 'num'}, load.activeSessions),
      el('td', {class: 'num'}, load.activeRequests),
      el('td', {class: 'num qps'}, fmtRate(rate.get(key(ep.name, n.name)))),
      el('td', {class: 'num share'}, s === null ? '–' : (s * 100).toFixed(0) + '%'));
  });
  return el('article', {class: 'card', 'data-endpoint': ep.name},
    el('h3', {}, ep.name, ' ', el('span', {class: 'muted small'}, ep.listen)),
    el('dl', {class: 'facts'},
      el('div', {}, el('dt', {}, 'mode'), el('dd', {}, ep.mode)),
      el('div', {}, el('dt', {}, 'balancer'), el('dd', {}, ep.balancer)),
      el('div', {}, el('dt', {}, 'consistency'), el('dd', {}, ep.consistency)),
      el('div', {}, el('dt', {}, 'sessions'), el('dd', {class: 'sessions'}, ep.activeSessions)),
      el('div', {}, el('dt', {}, 'QPS'), el('dd', {class: 'qps'}, fmtRate(epRate)))),
    bar,
    el('div', {class: 'scroll'}, el('table', {},
      el('thead', {}, el('tr', {}, el('th', {}, 'Node'), el('th', {class: 'num'}, 'Weight'), el('th', {}, 'Readable'),
        el('th', {class: 'num'}, 'Sessions'), el('th', {class: 'num'}, 'Requests'), el('th', {class: 'num'}, 'QPS'),
        el('th', {class: 'num'}, 'Share'))),
      el('tbody', {}, rows))));
}

function renderEndpoints(proxy, rate, colors) {
  document.getElementById('endpoints').replaceChildren(...proxy.endpoints.map(ep => renderEndpoint(ep, proxy, rate,
    colors)));
}

function setStatus(ok, detail) {
  const s = document.getElementById('status');
  s.className = 'status ' + (ok ? 'status-ok' : 'status-down');
  s.textContent = ok ? 'live · ' + new Date().toLocaleTimeString() : 'admin API unreachable (' + detail + '), retrying';
}

async function pollProxy() {
  try {
    const response = await fetch(PROXY_URL, {cache: 'no-store'});
    if (!response.ok) throw new Error('HTTP ' + response.status);
    const proxy = await response.json();
    const rate = rates(proxy, performance.now());
    const colors = colorOf(proxy);
    nodeColors = colors;
    renderHeader(proxy);
    renderRoles(proxy);
    renderNodes(proxy, rate, colors);
    renderEndpoints(proxy, rate, colors);
    setStatus(true);
  } catch (e) {
    setStatus(false, e.message);
  } finally {
    setTimeout(pollProxy, POLL_MS);
  }
}

// The labels of one exposition line: name{a="x",b="y"} value
function parseSample(line) {
  const brace = line.indexOf('{');
  const end = line.lastIndexOf('}');
  if (brace < 0 || end < brace) return null;
  const labels = {};
  const re = /(\w+)="((?:[^"\\]|\\.)*)"/g;
  let m;
  while ((m = re.exec(line.substring(brace + 1, end))) !== null) {
    labels[m[1]] = m[2].replace(/\\(.)/g, (_, c) => c === 'n' ? '\n' : c);
  }
  return {name: line.substring(0, brace), labels, value: parseFloat(line.substring(end + 1))};
}

function renderWaits(text, at) {
  const counts = new Map();
  const sums = new Map();
  for (const line of text.split('\n')) {
    if (!line.startsWith(WAIT_METRIC)) continue;
    const s = parseSample(line);
    if (s === null) continue;
    const k = key(s.labels.endpoint, s.labels.outcome);
    if (s.name === WAIT_METRIC + '_count') counts.set(k, s.value);
    if (s.name === WAIT_METRIC + '_sum') sums.set(k, s.value);
  }
  const dt = previousWaits && at > previousWaits.at ? (at - previousWaits.at) / 1000 : null;
  const rows = [...counts.keys()].sort().map(k => {
    const [endpoint, outcome] = k.split('\u0000');
    const n = counts.get(k);
    const before = previousWaits ? previousWaits.counts.get(k) : undefined;
    const perSecond = dt && before !== undefined && n >= before ? (n - before) / dt : null;
    const mean = n > 0 ? (sums.get(k) || 0) / n : null;
    return el('tr', {'data-endpoint': endpoint, 'data-outcome': outcome},
      el('td', {}, endpoint),
      el('td', {class: 'outcome-' + outcome}, OUTCOMES[outcome] || outcome),
      el('td', {class: 'num'}, n),
      el('td', {class: 'num'}, fmtRate(perSecond)),
      el('td', {class: 'num'}, mean === null ? '–' : (mean * 1000).toFixed(2) + ' ms'));
  });
  previousWaits = {at, counts};
  if (rows.length > 0) document.querySelector('#waits tbody').replaceChildren(...rows);
}

async function pollMetrics() {
  try {
    const response = await fetch(METRICS_URL, {cache: 'no-store'});
    if (response.ok) renderWaits(await response.text(), performance.now());
  } catch (e) {
    // The proxy poll reports reachability; this panel just keeps its last figures.
  } finally {
    setTimeout(pollMetrics, METRICS_POLL_MS);
  }
}

function fmtMicros(us) {
  if (us === null || us === undefined) return '–';
  if (us >= 1e6) return (us / 1e6).toFixed(2) + ' s';
  if (us >= 1e3) return (us / 1e3).toFixed(2) + ' ms';
  return us + ' µs';
}

function renderDigests(report) {
  const rows = (report.digests || []).map(d => el('tr', {'data-digest': d.digest},
    el('td', {class: 'digest'}, el('code', {}, d.digest), d.hints ? ' ' : null,
      d.hints ? badge(d.hints, 'hint') : null),
    el('td', {}, d.endpoint),
    el('td', {}, d.account || '–'),
    el('td', {class: 'num'}, d.count),
    el('td', {class: 'num' + (d.errors > 0 ? ' errors' : '')}, d.errors),
    el('td', {class: 'num'}, fmtMicros(d.totalMicros)),
    el('td', {class: 'num'}, fmtMicros(d.meanMicros)),
    el('td', {class: 'num'}, fmtMicros(d.p99Micros)),
    el('td', {class: 'num'}, fmtMicros(d.maxMicros)),
    el('td', {class: 'num'}, d.rowsSent),
    el('td', {class: 'num'}, d.onPrimary),
    el('td', {class: 'num'}, d.onReplicas)));
  if (rows.length > 0) document.querySelector('#digests tbody').replaceChildren(...rows);
}

async function pollDigests() {
  try {
    const response = await fetch(DIGESTS_URL, {cache: 'no-store'});
    if (response.ok) {
      renderDigests(await response.json());
    } else if (response.status === 409) {
      // Digests are off in this proxy's configuration: say so where the table would be.
      const refusal = await response.json();
      document.querySelector('#digests tbody').replaceChildren(
        el('tr', {}, el('td', {colspan: '12', class: 'muted'}, refusal.error)));
    }
  } catch (e) {
    // The proxy poll reports reachability; this panel just keeps its last figures.
  } finally {
    setTimeout(pollDigests, METRICS_POLL_MS);
  }
}

// A step of the history; the page asks again one step after each answer.
async function pollHistory() {
  let step = DEFAULT_STEP_SECONDS;
  try {
    const response = await fetch(HISTORY_URL, {cache: 'no-store'});
    if (response.ok) {
      const history = await response.json();
      step = history.stepSeconds || step;
      drawHistory(history, nodeColors);
    }
  } catch (e) {
    // The proxy poll reports reachability; the charts keep their last figures.
  } finally {
    setTimeout(pollHistory, step * 1000);
  }
}

window.addEventListener('resize', resizeCharts);
// The topology first, so that the charts' node colours match the tables' from the first draw.
pollProxy().then(pollHistory);
pollMetrics();
pollDigests();
