// The qitos board page. It loads the run listing from /api/runs, then asks every few seconds for what changed since
// the version it holds (new runs, running runs' steps, finished runs, removed folders). Search and sort run here, over
// the rows in memory; only the first rows that match are put in the table (more on request). Every value from a
// trace is set as textContent, never as markup.
'use strict';
(function () {
  const $ = (id) => document.getElementById(id);
  const runs = new Map();
  const benches = new Map();
  let version = 0;
  let pollMs = 2000;
  let sortKey = 'createdAt';
  let sortDir = -1;
  let limit = 200;
  const picked = [];
  const pickedBenches = [];
  let openBench = null;

  const NUMERIC = new Set(['steps', 'tokens', 'cost', 'durationMs']);
  const FIELDS = {
    agent: 'agent',
    model: 'model',
    status: 'status',
    stop: 'stopReason',
    task: 'task',
    variant: 'variant',
    bench: 'bench',
    run: 'runId',
    id: 'taskId',
  };

  function el(tag, text, cls) {
    const e = document.createElement(tag);
    if (text !== undefined && text !== null) e.textContent = String(text);
    if (cls) e.className = cls;
    return e;
  }
  const fmtNum = (n) => (n === null || n === undefined ? '-' : n.toLocaleString('en-US'));
  const fmtCost = (c) =>
    c === null || c === undefined ? '?' : c === 0 ? '$0' : c < 0.01 ? `$${c.toFixed(4)}` : `$${c.toFixed(2)}`;
  const fmtMs = (ms) =>
    ms === null || ms === undefined
      ? '-'
      : ms < 1000
        ? `${Math.round(ms)} ms`
        : ms < 60000
          ? `${(ms / 1000).toFixed(1)} s`
          : `${(ms / 60000).toFixed(1)} min`;
  const fmtDate = (s) => (typeof s === 'string' ? s.replace('T', ' ').slice(0, 19) : '');
  const viewUrl = (a, b) => `/view?run=${encodeURIComponent(a)}${b ? `&b=${encodeURIComponent(b)}` : ''}`;

  function haystack(r) {
    return [r.runId, r.agent, r.model, r.task, r.taskId, r.status, r.stopReason, r.variant, r.bench, r.path]
      .filter((x) => x)
      .join('\n')
      .toLowerCase();
  }

  /** The search as tests: each word must match; `field:value` looks in that field only. */
  function matcher(query) {
    const words = query.toLowerCase().split(/\s+/).filter(Boolean);
    const tests = words.map((w) => {
      const m = /^([a-z]+):(.*)$/.exec(w);
      if (m && FIELDS[m[1]] && m[2]) {
        const key = FIELDS[m[1]];
        return (r) =>
          String(r[key] ?? '')
            .toLowerCase()
            .includes(m[2]);
      }
      return (r) => r._hay.includes(w);
    });
    return (r) => tests.every((t) => t(r));
  }

  function compare(a, b) {
    const x = a[sortKey];
    const y = b[sortKey];
    if (x === y) return 0;
    if (x === null || x === undefined) return 1; // unknowns last, either direction
    if (y === null || y === undefined) return -1;
    if (NUMERIC.has(sortKey)) return (x - y) * sortDir;
    return String(x).localeCompare(String(y)) * sortDir;
  }

  function renderRuns() {
    const match = matcher($('search').value);
    const rows = [...runs.values()].filter(match).sort(compare);
    const body = $('runs').tBodies[0];
    const frag = document.createDocumentFragment();
    for (const r of rows.slice(0, limit)) {
      const tr = el('tr', undefined, 'run');
      tr.dataset.id = r.id;
      if (r.status === 'running') tr.classList.add('running');
      if (picked.includes(r.id)) tr.classList.add('picked');
      const box = el('input');
      box.type = 'checkbox';
      box.className = 'pick';
      box.checked = picked.includes(r.id);
      box.title = 'pick for A | B';
      box.addEventListener('change', () => pick(r.id, box.checked));
      const sel = el('td', undefined, 'sel');
      sel.append(box);
      const link = el('a', r.runId);
      link.href = viewUrl(r.id);
      link.title = r.path;
      const run = el('td', undefined, 'run-id');
      run.append(link);
      if (r.parent) run.append(el('span', ` (${r.parent})`, 'note'));
      const task = el('td', r.task, 'task');
      task.title = r.taskId ? `${r.taskId}: ${r.task}` : r.task;
      const variant = el('td', r.variant, 'variant');
      variant.title = r.variant;
      tr.append(
        sel,
        run,
        el('td', r.agent, 'agent'),
        el('td', r.model ?? '-', 'model'),
        task,
        el('td', r.status, `status status-${r.status}`),
        el('td', r.stopReason ?? '-', `stop stop-${r.stopReason ?? 'none'}`),
        el('td', fmtNum(r.steps), 'num steps'),
        el('td', fmtNum(r.tokens), 'num tokens'),
        el('td', fmtCost(r.cost), 'num cost'),
        el('td', fmtDate(r.createdAt), 'started'),
        el('td', fmtMs(r.durationMs), 'num time'),
        variant,
      );
      frag.append(tr);
    }
    body.replaceChildren(frag);
    $('count').textContent =
      `${rows.length} of ${runs.size} runs${rows.length > limit ? `, first ${limit} shown` : ''}`;
    $('runs-total').textContent = `(${runs.size})`;
    $('more').hidden = rows.length <= limit;
    for (const th of document.querySelectorAll('#runs th[data-key]')) {
      th.classList.toggle('asc', th.dataset.key === sortKey && sortDir === 1);
      th.classList.toggle('desc', th.dataset.key === sortKey && sortDir === -1);
    }
    const cmp = $('compare');
    cmp.classList.toggle('disabled', picked.length !== 2);
    cmp.href = picked.length === 2 ? viewUrl(picked[0], picked[1]) : '#';
    cmp.textContent =
      picked.length === 2
        ? `Compare A | B (${picked.length} picked)`
        : `Compare A | B (pick two: ${picked.length} picked)`;
  }

  function pick(id, on) {
    const i = picked.indexOf(id);
    if (on && i < 0) {
      picked.push(id);
      if (picked.length > 2) picked.shift();
    }
    if (!on && i >= 0) picked.splice(i, 1);
    renderRuns();
  }

  function renderBenches() {
    const body = $('benches').tBodies[0];
    const frag = document.createDocumentFragment();
    const list = [...benches.values()].sort((a, b) =>
      String(b.updatedAt ?? '').localeCompare(String(a.updatedAt ?? '')),
    );
    for (const b of list) {
      const tr = el('tr', undefined, 'bench');
      tr.dataset.id = b.id;
      const box = el('input');
      box.type = 'checkbox';
      box.className = 'pick';
      box.checked = pickedBenches.includes(b.id);
      box.addEventListener('change', () => {
        const i = pickedBenches.indexOf(b.id);
        if (box.checked && i < 0) pickedBenches.push(b.id);
        if (!box.checked && i >= 0) pickedBenches.splice(i, 1);
        renderBenches();
      });
      const sel = el('td', undefined, 'sel');
      sel.append(box);
      const link = el('a', b.path);
      link.href = '#';
      link.addEventListener('click', (e) => {
        e.preventDefault();
        showBench(b.id);
      });
      const name = el('td', undefined, 'folder');
      name.append(link);
      if (b.problem) name.append(el('div', b.problem, 'note'));
      const rate = b.trials ? `${((b.passed / b.trials) * 100).toFixed(1)}% (${b.passed}/${b.trials})` : '-';
      tr.append(
        sel,
        name,
        el('td', b.suite ?? '-'),
        el('td', b.model ?? '-'),
        el('td', b.agent ?? '-'),
        el('td', b.trials, 'num'),
        el('td', rate, 'num rate'),
        el('td', b.errors, 'num'),
        el('td', fmtCost(b.cost), 'num'),
        el('td', fmtDate(b.updatedAt)),
      );
      frag.append(tr);
    }
    body.replaceChildren(frag);
    $('benches-total').textContent = `(${benches.size})`;
    const cmp = $('compare-benches');
    cmp.classList.toggle('disabled', pickedBenches.length < 2);
    cmp.href =
      pickedBenches.length >= 2
        ? `/bench-report?${pickedBenches.map((id) => `id=${encodeURIComponent(id)}`).join('&')}`
        : '#';
  }

  async function showBench(id) {
    openBench = id;
    const res = await fetch(`/api/bench?id=${encodeURIComponent(id)}`, { headers: { accept: 'application/json' } });
    const data = await res.json();
    if (!res.ok) {
      $('live').textContent = data.error ? data.error.message : `error ${res.status}`;
      return;
    }
    $('bench-detail').hidden = false;
    $('bench-title').textContent = `${data.bench.path}: ${data.results.length} trials`;
    const frag = document.createDocumentFragment();
    for (const r of data.results) {
      const tr = el('tr', undefined, 'result');
      const task = el('td');
      if (r.run) {
        const a = el('a', r.taskId);
        a.href = viewUrl(r.run);
        task.append(a);
      } else task.textContent = r.taskId;
      tr.append(
        task,
        el('td', r.epoch, 'num'),
        el('td', r.pass ? 'pass' : 'fail', r.pass ? 'pass' : 'fail'),
        el('td', r.score.toFixed(3), 'num'),
        el('td', r.stopReason),
        el('td', r.steps, 'num'),
        el('td', fmtNum(r.tokens), 'num'),
        el('td', fmtCost(r.cost), 'num'),
        el('td', fmtMs(r.durationMs), 'num'),
        el('td', r.error ?? ''),
      );
      frag.append(tr);
    }
    $('results').tBodies[0].replaceChildren(frag);
    $('report').src = `/bench-report?id=${encodeURIComponent(id)}`;
  }

  function apply(data) {
    if (data.full) {
      runs.clear();
      benches.clear();
    }
    for (const r of data.rows) {
      r._hay = haystack(r);
      runs.set(r.id, r);
    }
    for (const b of data.benches) benches.set(b.id, b);
    for (const id of data.removed) {
      runs.delete(id);
      benches.delete(id);
    }
    if (data.full && data.skipped && data.skipped.length) {
      $('skipped').hidden = false;
      $('skipped').textContent =
        `${data.skipped.length} folder(s) not listed: ${data.skipped.slice(0, 3).join('; ')}${data.skipped.length > 3 ? '; …' : ''}`;
    }
    version = data.version;
    pollMs = data.pollMs || pollMs;
  }

  async function poll() {
    try {
      const res = await fetch(`/api/runs?since=${version}`, { headers: { accept: 'application/json' } });
      const data = await res.json();
      if (!res.ok) throw new Error(data.error ? data.error.message : `HTTP ${res.status}`);
      const changed = data.full || data.rows.length || data.benches.length || data.removed.length;
      apply(data);
      if (changed) {
        renderRuns();
        renderBenches();
        if (openBench && data.benches.some((b) => b.id === openBench)) showBench(openBench);
      }
      const running = [...runs.values()].filter((r) => r.status === 'running').length;
      $('live').textContent = `${running} running · updated ${new Date().toLocaleTimeString()}`;
      document.body.dataset.version = String(version);
      document.body.dataset.ready = 'true';
    } catch (err) {
      $('live').textContent = `cannot update: ${err.message}`;
    }
    setTimeout(poll, pollMs);
  }

  for (const th of document.querySelectorAll('#runs th[data-key]')) {
    th.addEventListener('click', () => {
      const key = th.dataset.key;
      if (key === sortKey) sortDir = -sortDir;
      else {
        sortKey = key;
        sortDir = NUMERIC.has(key) || key === 'createdAt' ? -1 : 1;
      }
      renderRuns();
    });
  }
  let typing;
  $('search').addEventListener('input', () => {
    clearTimeout(typing);
    typing = setTimeout(() => {
      limit = 200;
      renderRuns();
    }, 80);
  });
  $('more').addEventListener('click', () => {
    limit += 500;
    renderRuns();
  });
  const tab = (name) => {
    $('tab-runs').classList.toggle('on', name === 'runs');
    $('tab-benches').classList.toggle('on', name === 'benches');
    $('runs-view').hidden = name !== 'runs';
    $('benches-view').hidden = name !== 'benches';
  };
  $('tab-runs').addEventListener('click', () => tab('runs'));
  $('tab-benches').addEventListener('click', () => tab('benches'));
  poll();
})();
