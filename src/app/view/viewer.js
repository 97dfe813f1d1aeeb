// The qitos trace viewer. Data comes from #qitos-data: base64 of raw DEFLATE (see view-pack.ts), inflated with
// DecompressionStream: the index (runs, rows, a short summary per step) at once, a chunk of full steps when its rows
// come into view or a step is opened. Everything is rendered with textContent (never innerHTML), and only the rows
// in view exist in the DOM, so 10,000-step runs open fast.
(function () {
  'use strict';
  var packed = JSON.parse(document.getElementById('qitos-data').textContent);
  function bytes(b64) {
    var s = atob(b64);
    var a = new Uint8Array(s.length);
    for (var i = 0; i < s.length; i++) a[i] = s.charCodeAt(i);
    return a;
  }
  function inflate(b64) {
    var stream = new Blob([bytes(b64)]).stream().pipeThrough(new DecompressionStream('deflate-raw'));
    return new Response(stream).text().then(JSON.parse);
  }
  var broken = false;
  function fail(err) {
    broken = true;
    var d = document.getElementById('detail');
    d.textContent = '';
    var p = document.createElement('p');
    p.className = 'banner error';
    p.textContent =
      'This page could not decode its data (' +
      String((err && err.message) || err) +
      '). It needs a browser with DecompressionStream: Chrome/Edge 80+, Firefox 113+, Safari 16.4+.';
    d.appendChild(p);
    document.body.setAttribute('data-ready', 'error');
  }
  if (typeof DecompressionStream === 'undefined') return fail(new Error('no DecompressionStream'));
  inflate(packed.meta).then(start, fail);

  function start(data) {
    var pair = data.runs.length === 2;
    var CHUNK = packed.chunk;
    // Decoded chunks of full steps per run (chunk index -> steps), most recently used last; at most MAX_CHUNKS kept.
    var MAX_CHUNKS = 48;
    var loaded = data.runs.map(function () {
      return {};
    });
    var loading = data.runs.map(function () {
      return {};
    });
    var order = [];
    var ROW_H = 30;
    var OVERSCAN = 12;
    var timeline = document.getElementById('timeline');
    var rowsEl = document.getElementById('rows');
    var spacer = document.getElementById('spacer');
    var detail = document.getElementById('detail');
    var filterEl = document.getElementById('filter');
    var onlyDiff = document.getElementById('only-diff');
    var countEl = document.getElementById('count');
    var visible = [];
    var selected = -1;
    var maxMs = 1;

    function el(tag, cls, text) {
      var e = document.createElement(tag);
      if (cls) e.className = cls;
      if (text !== undefined && text !== null) e.textContent = String(text);
      return e;
    }
    function add(parent) {
      for (var i = 1; i < arguments.length; i++) if (arguments[i]) parent.appendChild(arguments[i]);
      return parent;
    }
    function json(v) {
      return typeof v === 'string' ? v : JSON.stringify(v, null, 2);
    }
    function ms(v) {
      if (v === null || v === undefined) return '-';
      return v < 1000 ? Math.round(v) + 'ms' : (v / 1000).toFixed(1) + 's';
    }
    function cost(c) {
      if (c === null) return '?';
      if (c === undefined) return '-';
      return c === 0 ? '0' : c < 0.01 ? c.toFixed(5) : c.toFixed(4);
    }
    // A step's row summary (what the timeline and the filter read), always at hand.
    function stepOf(run, idx) {
      return idx >= 0 ? data.rowSteps[run][idx] : null;
    }
    // A step in full: null when absent, undefined while its chunk is not decoded yet.
    function fullStep(run, idx) {
      if (idx < 0) return null;
      var list = loaded[run][Math.floor(idx / CHUNK)];
      return list ? list[idx % CHUNK] : undefined;
    }
    // Decodes the chunk holding step `idx` of `run` (once; concurrent callers share the promise).
    function ensure(run, idx) {
      if (idx < 0) return Promise.resolve();
      var c = Math.floor(idx / CHUNK);
      if (loaded[run][c]) return Promise.resolve();
      if (!loading[run][c])
        loading[run][c] = inflate(packed.steps[run][c]).then(function (list) {
          delete loading[run][c];
          loaded[run][c] = list;
          order.push([run, c]);
          for (var k = 0; order.length > MAX_CHUNKS && k < order.length;) {
            var o = order[k];
            if (keep(o[0], o[1])) k++;
            else {
              delete loaded[o[0]][o[1]];
              order.splice(k, 1);
            }
          }
        });
      return loading[run][c];
    }
    // The selected step's chunks stay decoded.
    function keep(run, c) {
      if (selected < 0) return false;
      var row = data.rows[selected];
      var idx = run === 0 ? row.a : row.b;
      return idx >= 0 && Math.floor(idx / CHUNK) === c;
    }
    function ensureRow(i) {
      var row = data.rows[i];
      return Promise.all([ensure(0, row.a), pair ? ensure(1, row.b) : null]);
    }
    function label(s) {
      if (!s) return '(no step)';
      var d = s.decision;
      if (!d) return s.error ? 'error: ' + s.error.kind + ': ' + s.error.message : '(no decision)';
      if (d.mode === 'final') return 'final: ' + d.answer;
      if (d.mode === 'act') {
        return d.actions
          .map(function (a) {
            return (
              a.name +
              '(' +
              Object.keys(a.args)
                .map(function (k) {
                  return k + '=' + JSON.stringify(a.args[k]);
                })
                .join(', ') +
              ')'
            );
          })
          .join(' ');
      }
      return d.mode;
    }
    function kind(s) {
      if (!s) return '';
      if (s.error && !s.decision) return 'kind-error';
      if (s.decision && s.decision.mode === 'final') return 'kind-final';
      return '';
    }

    // ---- header ----
    function renderHeader() {
      var head = document.getElementById('head');
      data.runs.forEach(function (r, i) {
        var box = el('div', 'run');
        var tag = pair ? (i === 0 ? 'A  ' : 'B  ') : '';
        add(box, el('h1', null, tag + r.runId + '  ·  ' + r.agent + '  ·  ' + (r.model || 'no model')));
        add(
          box,
          el(
            'div',
            'meta',
            r.status +
              '  ·  stop: ' +
              (r.stopReason || '-') +
              (r.stopMessage ? ' (' + r.stopMessage + ')' : '') +
              '  ·  ' +
              r.steps +
              ' steps  ·  ' +
              r.tokens +
              ' tokens  ·  cost ' +
              cost(r.cost) +
              '  ·  ' +
              ms(r.durationMs) +
              '  ·  ' +
              r.createdAt,
          ),
        );
        add(box, el('div', 'task', 'task: ' + r.task));
        if (r.variant) add(box, el('div', 'meta variant', 'variant: ' + r.variant));
        if (r.finalResult !== null) add(box, el('div', 'meta', 'final: ' + r.finalResult));
        if (r.failures.length)
          add(
            box,
            el(
              'div',
              'meta',
              r.failures.length +
                ' failure(s): ' +
                r.failures
                  .map(function (f) {
                    return 'step ' + f.step + ' ' + f.kind;
                  })
                  .join(', '),
            ),
          );
        // A bug in the user's code: where it was thrown, and its stack (folded).
        r.failures.forEach(function (f) {
          if (!f.at && !f.stack) return;
          var where = el('details', 'thrown');
          add(
            where,
            el(
              'summary',
              null,
              'step ' +
                f.step +
                ' ' +
                f.kind +
                ' error at ' +
                (f.at || '(no frame outside qitos-ts)') +
                ': ' +
                f.message,
            ),
          );
          if (f.stack) add(where, el('pre', 'stack', f.stack));
          add(box, where);
        });
        r.warnings.forEach(function (w) {
          add(box, el('div', 'meta', 'warning: ' + w));
        });
        if (r.workflow) box.appendChild(renderWorkflow(r.workflow));
        head.appendChild(box);
      });
      if (pair) {
        head.appendChild(
          el(
            'div',
            'first',
            data.first
              ? 'first difference: step ' + data.first.step + ', ' + data.first.phase + ': ' + data.first.detail
              : 'no difference in the aligned steps',
          ),
        );
        (data.texts || []).forEach(function (t) {
          head.appendChild(textDiff(t));
        });
      } else {
        document.getElementById('only-diff-label').style.display = 'none';
      }
      var cols = document.getElementById('cols');
      add(cols, el('span', null, pair ? 'step · A | B · differing phases' : 'step · decision · tokens · cost · time'));
    }

    // ---- a workflow run as its graph ----
    var SVG = 'http://www.w3.org/2000/svg';
    function svg(tag, attrs, text) {
      var e = document.createElementNS(SVG, tag);
      Object.keys(attrs).forEach(function (k) {
        e.setAttribute(k, String(attrs[k]));
      });
      if (text !== undefined) e.textContent = text;
      return e;
    }
    /** Nodes in columns by their distance from the start (breadth first, ignoring the way back of loops). */
    function renderWorkflow(wf) {
      var d = el('details', 'workflow');
      d.open = true;
      add(
        d,
        el(
          'summary',
          null,
          'workflow ' +
            wf.name +
            ' · ' +
            wf.status +
            ' · ' +
            wf.nodes.filter(function (n) {
              return n.status === 'done';
            }).length +
            ' of ' +
            wf.nodes.length +
            ' nodes done',
        ),
      );
      var depth = {};
      var start =
        wf.nodes.filter(function (n) {
          return n.kind === 'start';
        })[0] || wf.nodes[0];
      if (!start) return d;
      depth[start.id] = 0;
      var queue = [start.id];
      while (queue.length) {
        var id = queue.shift();
        wf.edges.forEach(function (e) {
          if (e.from === id && e.label !== 'loop' && depth[e.to] === undefined) {
            depth[e.to] = depth[id] + 1;
            queue.push(e.to);
          }
        });
      }
      var cols = {};
      var maxDepth = 0;
      wf.nodes.forEach(function (n) {
        var c = depth[n.id] === undefined ? -1 : depth[n.id];
        (cols[c] = cols[c] || []).push(n);
        maxDepth = Math.max(maxDepth, c);
      });
      if (cols[-1]) {
        cols[maxDepth + 1] = cols[-1];
        delete cols[-1];
        maxDepth++;
      }
      var W = 150,
        H = 44,
        GX = 40,
        GY = 14,
        pos = {},
        rows = 0;
      Object.keys(cols).forEach(function (c) {
        cols[c].forEach(function (n, i) {
          pos[n.id] = { x: 10 + Number(c) * (W + GX), y: 10 + i * (H + GY) };
        });
        rows = Math.max(rows, cols[c].length);
      });
      var g = svg('svg', {
        width: 20 + (maxDepth + 1) * (W + GX),
        height: 20 + rows * (H + GY),
        class: 'wf-graph',
        role: 'img',
      });
      wf.edges.forEach(function (e) {
        var a = pos[e.from],
          b = pos[e.to];
        if (!a || !b) return;
        g.appendChild(
          svg('line', {
            x1: a.x + W,
            y1: a.y + H / 2,
            x2: b.x,
            y2: b.y + H / 2,
            class: 'wf-edge' + (e.label === 'loop' ? ' wf-back' : ''),
          }),
        );
        if (e.label)
          g.appendChild(
            svg('text', { x: (a.x + W + b.x) / 2, y: (a.y + b.y) / 2 + H / 2 - 3, class: 'wf-label' }, e.label),
          );
      });
      wf.nodes.forEach(function (n) {
        var p = pos[n.id];
        var box = svg('g', { class: 'wf-node wf-' + n.status, 'data-node': n.id });
        box.appendChild(svg('rect', { x: p.x, y: p.y, width: W, height: H, rx: 6 }));
        box.appendChild(svg('text', { x: p.x + 8, y: p.y + 18 }, n.id));
        box.appendChild(
          svg(
            'text',
            { x: p.x + 8, y: p.y + 35, class: 'wf-sub' },
            n.kind +
              ' · ' +
              n.status +
              (n.visits > 1 ? ' ×' + n.visits : '') +
              (n.tokens ? ' · ' + n.tokens + ' tok' : '') +
              (n.executionTimeMs != null ? ' · ' + ms(n.executionTimeMs) : ''),
          ),
        );
        box.appendChild(
          svg(
            'title',
            {},
            n.id +
              ' (' +
              n.kind +
              '): ' +
              n.status +
              (n.executionTimeMs != null ? ', ran ' + ms(n.executionTimeMs) : ''),
          ),
        );
        g.appendChild(box);
      });
      d.appendChild(g);
      return d;
    }

    // A differing prompt, tool spec list or config: folded, its unified diff one line per element (add / del / hunk).
    function textDiff(t) {
      var box = el('details', 'textdiff');
      add(
        box,
        el(
          'summary',
          null,
          t.kind +
            (t.kind === 'tool specs' ? ' differ' : ' differs') +
            (t.step !== undefined ? ' at step ' + t.step : '') +
            ' (A ' +
            (t.hashA || '-') +
            ', B ' +
            (t.hashB || '-') +
            ')',
        ),
      );
      if (t.diff === null) return add(box, el('div', 'meta', t.note || 'no text to compare'));
      var pre = el('pre', 'diff');
      t.diff
        .replace(/\n$/, '')
        .split('\n')
        .forEach(function (line) {
          var c = line.charAt(0);
          var cls =
            line.indexOf('@@') === 0
              ? 'hunk'
              : line.indexOf('---') === 0 || line.indexOf('+++') === 0
                ? 'file'
                : c === '+'
                  ? 'add'
                  : c === '-'
                    ? 'del'
                    : null;
          add(pre, el('span', cls, line + '\n'));
        });
      return add(box, pre);
    }

    // ---- timeline (virtualized) ----
    function matches(row, q) {
      if (pair && onlyDiff.checked && !row.ph.length) return false;
      if (!q) return true;
      var text =
        label(stepOf(0, row.a)) + ' ' + (pair ? label(stepOf(1, row.b)) + ' ' + row.ph.join(' ') : '') + ' ' + row.s;
      return text.toLowerCase().indexOf(q) >= 0;
    }
    function applyFilter() {
      var q = filterEl.value.trim().toLowerCase();
      visible = [];
      for (var i = 0; i < data.rows.length; i++) if (matches(data.rows[i], q)) visible.push(i);
      spacer.style.height = visible.length * ROW_H + 'px';
      countEl.textContent = visible.length + ' / ' + data.rows.length + ' steps';
      return renderRows();
    }
    function rowEl(pos) {
      var row = data.rows[visible[pos]];
      var e = el('div', 'row');
      e.style.top = pos * ROW_H + 'px';
      e.setAttribute('data-pos', String(pos));
      e.setAttribute('data-step', String(row.s));
      if (visible[pos] === selected) e.className += ' sel';
      if (row.ph.length) e.className += ' differs';
      add(e, el('span', 'n', row.s));
      var a = stepOf(0, row.a);
      if (pair) {
        var b = stepOf(1, row.b);
        var none = row.inh ? '(shared: before the fork)' : '(none)';
        add(
          e,
          el('span', 'lbl ' + kind(a), a ? label(a) : none),
          el('span', 'lbl ' + kind(b), b ? label(b) : none),
          el('span', 'ph', row.ph.join(', ')),
        );
      } else {
        var bar = el('span', 'bar');
        var fill = el('i');
        fill.style.width = Math.max(2, Math.round((100 * a.durationMs) / maxMs)) + '%';
        bar.appendChild(fill);
        add(
          e,
          el('span', 'lbl ' + kind(a), label(a)),
          el('span', 'num', a.tokens ? a.tokens.total + ' tok' : ''),
          el('span', 'num', a.cost === null || a.cost === undefined ? '' : '$' + cost(a.cost)),
          el('span', 'num', ms(a.durationMs)),
          bar,
        );
      }
      return e;
    }
    function renderRows() {
      var top = timeline.scrollTop;
      var h = timeline.clientHeight || 600;
      var from = Math.max(0, Math.floor(top / ROW_H) - OVERSCAN);
      var to = Math.min(visible.length, Math.ceil((top + h) / ROW_H) + OVERSCAN);
      var frag = document.createDocumentFragment();
      for (var p = from; p < to; p++) frag.appendChild(rowEl(p));
      rowsEl.textContent = '';
      rowsEl.appendChild(frag);
      return prefetch(from, to);
    }
    // Decodes the steps of the rows in view, so opening one of them is immediate.
    function prefetch(from, to) {
      var jobs = [];
      for (var p = from; p < to; p++) jobs.push(ensureRow(visible[p]));
      return Promise.all(jobs).catch(fail);
    }
    var pending = false;
    timeline.addEventListener('scroll', function () {
      if (pending) return;
      pending = true;
      requestAnimationFrame(function () {
        pending = false;
        renderRows();
      });
    });
    window.addEventListener('resize', renderRows);
    rowsEl.addEventListener('click', function (ev) {
      var r = ev.target.closest('.row');
      if (r) select(visible[Number(r.getAttribute('data-pos'))]);
    });
    timeline.addEventListener('keydown', function (ev) {
      var pos = visible.indexOf(selected);
      if (ev.key === 'j' || ev.key === 'ArrowDown') pos = Math.min(visible.length - 1, pos + 1);
      else if (ev.key === 'k' || ev.key === 'ArrowUp') pos = Math.max(0, pos - 1);
      else return;
      ev.preventDefault();
      if (pos >= 0) {
        select(visible[pos]);
        var y = pos * ROW_H;
        if (y < timeline.scrollTop || y + ROW_H > timeline.scrollTop + timeline.clientHeight)
          timeline.scrollTop = y - timeline.clientHeight / 2;
      }
    });
    filterEl.addEventListener('input', applyFilter);
    onlyDiff.addEventListener('change', applyFilter);

    // ---- step detail ----
    function section(title, differs) {
      var s = el('section', differs ? 'differs' : null);
      s.appendChild(el('h3', null, title + (differs ? ' (differs)' : '')));
      return s;
    }
    function kv(pairs) {
      var t = el('table', 'kv');
      pairs.forEach(function (p) {
        if (p[1] === undefined || p[1] === null || p[1] === '') return;
        var tr = el('tr');
        add(tr, el('td', null, p[0]), el('td', null, p[1]));
        t.appendChild(tr);
      });
      return t;
    }
    function toolTimes(st) {
      if (!st || !st.time) return '';
      var t = st.time;
      var parts = [];
      if (t.start !== undefined) parts.push('queued ' + ms(t.start - t.created));
      if (t.end !== undefined && t.start !== undefined) parts.push('ran ' + ms(t.end - t.start));
      if (t.created) parts.push('at ' + new Date(t.created).toISOString().slice(11, 23));
      return parts.join(' · ');
    }
    function renderStep(s, ph, inherited) {
      var box = el('div', 'side');
      if (!s) {
        add(
          box,
          el(
            'p',
            'hint',
            inherited
              ? 'This run is a fork: it starts after this step, from the state the other run reached here.'
              : 'This run has no such step.',
          ),
        );
        return box;
      }
      var has = function (p) {
        return ph.some(function (x) {
          return x.indexOf(p) === 0;
        });
      };
      add(box, el('h2', null, 'Step ' + s.step));
      var phases = Object.keys(s.phases)
        .map(function (k) {
          return k + ' ' + ms(s.phases[k]);
        })
        .join(' · ');
      add(
        box,
        kv([
          ['duration', ms(s.durationMs)],
          ['phases', phases],
          [
            'tokens',
            s.tokens
              ? s.tokens.total +
                ' (in ' +
                s.tokens.input +
                ', out ' +
                s.tokens.output +
                ', reasoning ' +
                s.tokens.reasoning +
                ', cache ' +
                s.tokens.cache.read +
                '/' +
                s.tokens.cache.write +
                ')'
              : null,
          ],
          ['cost', s.cost === undefined ? null : cost(s.cost)],
        ]),
      );
      if (s.stop) add(box, el('div', 'banner stop', 'stop: ' + s.stop.reason + ' — ' + s.stop.message));
      if (s.error)
        add(
          box,
          el(
            'div',
            'banner error',
            'error (' + s.error.kind + (s.error.recovered ? ', recovered' : ', fatal') + '): ' + s.error.message,
          ),
        );

      var obs = section('Observation', has('observation'));
      add(obs, el('pre', null, s.observation === null || s.observation === undefined ? '(none)' : json(s.observation)));
      box.appendChild(obs);

      if (s.model) {
        var mi = section('Model input', has('model_input'));
        var h = s.model.hashes;
        add(
          mi,
          kv([
            ['messages', s.model.messageCount],
            ['system hash', h.system],
            ['messages hash', h.messages],
            ['tools hash', h.tools],
            ['params hash', h.params],
          ]),
        );
        if (s.model.system !== undefined) {
          var sp = el('details');
          add(
            sp,
            el('summary', null, 'system prompt (' + s.model.system.length + ' chars, new at this step)'),
            el('pre', null, s.model.system || '(empty)'),
          );
          mi.appendChild(sp);
        } else {
          add(mi, el('p', 'hint', 'system prompt: as at the last step that shows one'));
        }
        var added = s.state && s.state.splice && s.state.splice.messages ? s.state.splice.messages.items : [];
        added
          .filter(function (m) {
            return m.role === 'user';
          })
          .forEach(function (m) {
            m.parts.forEach(function (p) {
              if (p.type === 'text') add(mi, el('pre', null, 'user: ' + p.text));
            });
          });
        box.appendChild(mi);
        var mo = section('Model output', false);
        var r = s.model.response;
        add(
          mo,
          kv([
            ['finish', r.finishReason],
            ['latency', ms(s.model.latencyMs)],
            ['model', r.modelId],
          ]),
        );
        r.parts.forEach(function (p) {
          if (p.type === 'reasoning') {
            var d = el('details');
            add(d, el('summary', null, 'reasoning (' + p.text.length + ' chars)'), el('pre', null, p.text));
            mo.appendChild(d);
          } else if (p.type === 'text') {
            add(mo, el('pre', null, p.text));
          } else {
            add(mo, el('pre', null, 'tool-call ' + p.name + ' ' + p.input));
          }
        });
        box.appendChild(mo);
      }

      var d = s.decision;
      var dec = section('Decision', has('decision'));
      if (!d) add(dec, el('p', 'hint', '(none)'));
      else {
        add(
          dec,
          kv([
            ['mode', d.mode],
            ['rationale', d.rationale],
            ['answer', d.mode === 'final' ? d.answer : null],
          ]),
        );
      }
      box.appendChild(dec);

      if (s.branch) {
        var br = section('Candidates (' + s.branch.search + ')', false);
        var ch = s.branch.chosen;
        if (ch.from === 'frontier')
          add(br, el('div', 'banner stop', 'backtracked: acted on candidate ' + ch.index + ' of step ' + ch.fromStep));
        s.branch.candidates.forEach(function (c, i) {
          var mark = ch.from === 'step' && ch.index === i ? 'chosen' : 'not taken';
          var what =
            c.mode === 'act'
              ? c.actions
                  .map(function (a) {
                    return a.name + ' ' + json(a.args);
                  })
                  .join('; ')
              : c.mode === 'final'
                ? 'final: ' + c.answer
                : c.mode;
          add(br, el('pre', 'candidate', '#' + i + ' score ' + s.branch.scores[i] + ' · ' + mark + ' · ' + what));
        });
        add(
          br,
          el(
            'p',
            'hint',
            'frontier after this step: ' +
              s.branch.frontier +
              ' · qitos fork <trace> --at ' +
              s.step +
              ' --branch <j> runs this step on another candidate',
          ),
        );
        box.appendChild(br);
      }

      if (s.critiques) {
        var cr = section('Critics', false);
        s.critiques.forEach(function (c) {
          var v = c.verdict;
          var text =
            c.critic +
            ': ' +
            v.action +
            (v.score !== undefined ? ' (score ' + v.score + ')' : '') +
            (c.exhausted ? ' — retries exhausted, step kept' : '');
          var why = v.action === 'retry' ? v.feedback : v.reason;
          add(cr, el('div', 'banner ' + (v.action === 'continue' ? 'stop' : 'error'), text + (why ? ' — ' + why : '')));
        });
        box.appendChild(cr);
      }

      if (d && d.mode === 'act') {
        var tc = section('Tool calls', has('action_args') || has('result'));
        d.actions.forEach(function (a, i) {
          var res = s.results[i];
          var t = el('div', 'tool');
          var head = el('div');
          add(
            head,
            el('span', 'name', a.name),
            el('span', null, ' '),
            el('span', 'badge ' + (res ? res.state.status : 'pending'), res ? res.state.status : 'not run'),
          );
          if (res) add(head, el('span', null, ' ' + toolTimes(res.state)));
          t.appendChild(head);
          add(t, el('pre', null, 'args ' + json(a.args)));
          if (res) add(t, el('pre', null, res.status === 'success' ? json(res.output) : 'error: ' + res.error));
          tc.appendChild(t);
        });
        box.appendChild(tc);
      }

      var st = section('State changes', has('state'));
      var rows = [];
      // A patch holds the changes inside an object: its rows name the key path (thread.vars.x).
      (function stateRows(sd, path) {
        Object.keys(sd.set || {}).forEach(function (k) {
          rows.push(['set ' + path + k, json(sd.set[k])]);
        });
        Object.keys(sd.splice || {}).forEach(function (k) {
          rows.push([path + k, sd.splice[k].items.length + ' item(s) from index ' + sd.splice[k].at]);
        });
        (sd.unset || []).forEach(function (k) {
          rows.push(['unset', path + k]);
        });
        Object.keys(sd.patch || {}).forEach(function (k) {
          stateRows(sd.patch[k] || {}, path + k + '.');
        });
      })(s.state || {}, '');
      if (rows.length) {
        var dd = el('details');
        add(dd, el('summary', null, rows.length + ' change(s)'), kv(rows));
        st.appendChild(dd);
      } else add(st, el('p', 'hint', '(no change)'));
      box.appendChild(st);
      return box;
    }
    // Shows step row `i` in the detail pane; the promise settles once it is drawn (at once when its chunk is decoded).
    function select(i) {
      selected = i;
      var row = data.rows[i];
      if (history.replaceState) history.replaceState(null, '', '#step-' + row.s);
      renderRows();
      if (fullStep(0, row.a) === undefined || (pair && fullStep(1, row.b) === undefined)) {
        detail.textContent = '';
        add(detail, el('p', 'hint', 'Loading step ' + row.s + '…'));
        return ensureRow(i).then(function () {
          if (selected === i) showDetail(row);
        }, fail);
      }
      showDetail(row);
      return Promise.resolve();
    }
    function showDetail(row) {
      detail.textContent = '';
      if (pair) {
        var wrap = el('div', 'pair');
        add(wrap, renderStep(fullStep(0, row.a), row.ph, row.inh), renderStep(fullStep(1, row.b), row.ph, row.inh));
        detail.appendChild(wrap);
      } else {
        detail.appendChild(renderStep(fullStep(0, row.a), []));
      }
      detail.scrollTop = 0;
    }

    data.rowSteps.forEach(function (list) {
      list.forEach(function (s) {
        if (s.durationMs > maxMs) maxMs = s.durationMs;
      });
    });
    renderHeader();
    var first = applyFilter();
    var m = /^#step-(\d+)$/.exec(location.hash);
    if (m) {
      for (var i = 0; i < data.rows.length; i++)
        if (data.rows[i].s === Number(m[1])) {
          first = select(i);
          timeline.scrollTop = visible.indexOf(i) * ROW_H;
          break;
        }
    }
    // Ready: header and rows drawn, the steps in view decoded (opening one draws at once).
    first.then(function () {
      if (!broken) document.body.setAttribute('data-ready', 'true');
    }, fail);
  }
})();
