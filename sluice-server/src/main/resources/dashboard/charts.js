// The "Last 15 minutes" charts: v1/history holds every sample Sluice kept (one per step), so the
// charts are full as soon as the page opens; it is read again every step and each chart's data is
// replaced. A chart is built again only when its set of lines changes (a node or endpoint added or
// removed). Drawn with uPlot, served by Sluice itself.
'use strict';

const HISTORY_URL = 'v1/history';
const CHART_HEIGHT = 190;
// Until the first answer says what the step is.
const DEFAULT_STEP_SECONDS = 5;
const CHARTS = {
  'statements': {title: 'Statements per second, by node', empty: 'no node yet'},
  'latency-p99': {title: 'Statement latency, 99th percentile (ms), by endpoint', empty: 'no endpoint yet'},
  'replication-lag': {title: 'Replication lag (s), by replica', empty: 'no replica reports its lag'},
  'sessions': {title: 'Client connections, by endpoint', empty: 'no endpoint yet'},
  'pool': {title: 'Pooled connections, by node: in use, idle, clients waiting',
    empty: 'no endpoint keeps a connection pool (connection-pool: none)'},
  'consistency-waits': {title: 'Consistency waits per second, by outcome', empty: 'no figures yet'},
};
const WAIT_COLORS = {'ok': '#1f8a4c', 'timeout-primary': '#b7791f', 'timeout-error': '#c62f3b'};
// Charts of things counted whole: their axis steps by whole numbers.
const WHOLE_NUMBERS = new Set(['sessions', 'pool']);
const WHOLE_INCREMENTS = [1, 2, 5, 10, 20, 50, 100, 200, 500, 1000, 2000, 5000, 10000, 20000, 50000];
// Pool lines share their node's colour; the dash tells the state apart.
const POOL_DASH = {'in use': null, 'idle': [6, 4], 'waiting': [2, 3]};

const charts = new Map();   // chart key -> {plot, names, figure}

function seriesLabel(chart, name) {
  return chart === 'consistency-waits' ? (OUTCOMES[name] || name) : name;
}

function seriesStyle(chart, name, index, colors) {
  if (chart === 'pool') {
    const [, node, state] = name.match(/^(.*) (in use|idle|waiting)$/) || [null, name, 'in use'];
    return {stroke: colors.get(node) || PALETTE[index % PALETTE.length], dash: POOL_DASH[state] || undefined};
  }
  if (chart === 'statements' || chart === 'replication-lag') {
    return {stroke: colors.get(name) || PALETTE[index % PALETTE.length]};
  }
  if (chart === 'consistency-waits') {
    return {stroke: WAIT_COLORS[name] || PALETTE[index % PALETTE.length]};
  }
  return {stroke: PALETTE[index % PALETTE.length]};
}

function chartWidth(figure) {
  return Math.max(240, figure.clientWidth - 2);
}

function figureFor(key) {
  let figure = document.querySelector('#charts figure[data-chart="' + key + '"]');
  if (figure === null) {
    const spec = CHARTS[key] || {title: key, empty: 'nothing to show'};
    figure = el('figure', {class: 'chart card', 'data-chart': key},
      el('figcaption', {}, spec.title),
      el('div', {class: 'plot'}),
      el('p', {class: 'empty muted', hidden: true}, spec.empty));
    document.getElementById('charts').append(figure);
  }
  return figure;
}

// Non-null values per line, in the figure's data-points, so that what the page drew can be checked.
function markDrawn(figure, series) {
  figure.setAttribute('data-series', String(series.length));
  figure.setAttribute('data-points', series.map(s => s.values.filter(v => v !== null).length).join(','));
}

function drawChart(c, times, colors) {
  const figure = figureFor(c.chart);
  const names = c.series.map(s => s.name).join('\u0000');
  const data = [times, ...c.series.map(s => s.values)];
  const existing = charts.get(c.chart);
  figure.querySelector('.empty').hidden = c.series.length > 0;
  if (existing && existing.names === names) {
    existing.plot.setData(data);
  } else {
    if (existing) existing.plot.destroy();
    charts.delete(c.chart);
    if (c.series.length > 0) {
      const plot = new uPlot({
        width: chartWidth(figure),
        height: CHART_HEIGHT,
        series: [{}, ...c.series.map((s, i) => Object.assign({
          label: seriesLabel(c.chart, s.name), width: 1.5, spanGaps: false,
          value: (u, v) => v === null || v === undefined ? '–' : fmtRate(v),
        }, seriesStyle(c.chart, s.name, i, colors)))],
        axes: [{}, WHOLE_NUMBERS.has(c.chart)
          ? {size: 50, incrs: WHOLE_INCREMENTS, values: (u, ticks) => ticks.map(t => String(t))}
          : {size: 50, values: (u, ticks) => ticks.map(t => fmtRate(t))}],
        scales: {y: {range: (u, min, max) => [0, Math.max(max, 1)]}},
        legend: {live: true},
        cursor: {drag: {x: false, y: false}},
      }, data, figure.querySelector('.plot'));
      charts.set(c.chart, {plot, names, figure});
    }
  }
  markDrawn(figure, c.series);
}

function drawHistory(history, colors) {
  for (const c of history.charts) {
    drawChart(c, history.times, colors);
  }
}

function resizeCharts() {
  for (const {plot, figure} of charts.values()) {
    plot.setSize({width: chartWidth(figure), height: CHART_HEIGHT});
  }
}
