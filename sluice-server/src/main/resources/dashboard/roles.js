// The switchover or failover in progress, step by step, or the outcome of the last one of each,
// from DescribeDBProxy's switchover and failover objects. The step named is the last one done.
'use strict';

const STEPS = {
  'connect': 'connected to every node',
  'confirm-gone': 'primary confirmed gone',
  'ask': 'replicas asked what they received',
  'drain': 'transactions on the primary ended',
  'fence': 'old primary fenced (read-only, other connections ended)',
  'catch-up': 'new primary caught up',
  'promote': 'new primary promoted',
  'repoint': 'replicas pointed at the new primary',
  'seen-writable': 'new primary seen writable',
  'release': 'held writes released',
  'replication-check': 'replication checked',
};
const STATES = {
  'in-progress': 'in progress',
  'done': 'done',
  'called-off': 'called off',
  'refused': 'refused',
};
const FORMER_PRIMARY = {
  'down': 'not back yet',
  'rejoined': 'back, replicating from the new primary',
  'diverged': 'back, but holds commits the new primary never had: it takes no traffic until rebuilt',
  'not-replicating': 'back, but not replicating yet',
};

function stepWords(step) {
  return step ? (STEPS[step] || step) : null;
}

function fmtTime(epochMillis) {
  return epochMillis ? new Date(epochMillis).toLocaleTimeString() : '–';
}

function roleChange(kind, s) {
  const inProgress = s.state === 'in-progress';
  const title = kind + (s.trigger ? ' (' + (s.trigger === 'auto' ? 'automatic' : 'by an operator') + ')' : '');
  const move = s.from || s.to ? [s.from || '?', ' → ', s.to || '?'] : [];
  const facts = [
    el('div', {}, el('dt', {}, inProgress ? 'since' : 'ended'), el('dd', {}, fmtTime(s.at))),
    s['held-ms'] !== null && s['held-ms'] !== undefined
      ? el('div', {}, el('dt', {}, 'writes held'), el('dd', {}, s['held-ms'] + ' ms')) : null,
    s.step && (inProgress || !(s.steps || []).length) ? el('div', {}, el('dt', {},
      inProgress ? 'last step done' : 'last step'), el('dd', {class: 'step'}, stepWords(s.step))) : null,
  ];
  const steps = (s.steps || []).map(st => el('li', {}, stepWords(st.step), el('span', {class: 'muted'},
    ' ' + st.ms + ' ms')));
  const former = s['former-primary-node'] ? el('p', {class: 'former former-' + s['former-primary']},
    'Old primary ' + s['former-primary-node'] + ': ' + (FORMER_PRIMARY[s['former-primary']] || s['former-primary'])
      + (s.unshipped ? ' (' + s.unshipped + ' commits)' : '')) : null;
  return el('article', {class: 'card role-change state-' + s.state, 'data-kind': kind.toLowerCase(),
      'data-state': s.state},
    el('h3', {}, title, ' ', badge(STATES[s.state] || s.state, 'change-' + s.state), ' ', ...move),
    el('dl', {class: 'facts'}, facts),
    inProgress ? el('p', {class: 'muted small'}, 'New writes and transactions wait at Sluice meanwhile; they are '
      + 'not refused. Reads on replicas go on.') : null,
    s.message ? el('p', {class: 'message'}, s.message) : null,
    steps.length > 0 ? el('ol', {class: 'steps'}, steps) : null,
    former);
}

function renderRoles(proxy) {
  const changes = [];
  if (proxy.switchover && proxy.switchover.state !== 'none') changes.push(roleChange('Switchover', proxy.switchover));
  if (proxy.failover && proxy.failover.state !== 'none') changes.push(roleChange('Failover', proxy.failover));
  // The one in progress first, then the most recent.
  changes.sort((a, b) => (b.dataset.state === 'in-progress') - (a.dataset.state === 'in-progress'));
  const roles = document.getElementById('roles');
  if (changes.length === 0) {
    roles.replaceChildren(el('p', {class: 'muted'}, 'No switchover or failover since Sluice started.'));
  } else {
    roles.replaceChildren(...changes);
  }
}
