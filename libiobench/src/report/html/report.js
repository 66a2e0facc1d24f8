// The HTML report's page script: renders the model that report_model.cpp prepared (embedded as
// JSON in #iobench-data) with DOM text nodes only (no innerHTML: result strings stay text).
// Time series, latency curves, sweeps and repetitions are dygraphs charts; bars are SVG drawn
// here. At the end the page writes its self-check into #iobench-selfcheck: per chart the rows
// the model holds and the rows dygraphs drew (numRows()), and every script error.
// The helpers come from report_dom.js, the comparison of runs from report_compare.js, the
// SNIA PTS plots and steady-state rounds (SVG) from report_pts.js.
(function (R) {
  'use strict';
  var errors = R.errors;
  var checks = R.checks;
  var recordError = R.recordError;
  var el = R.el;
  var svg = R.svg;
  var num = R.num;
  var table = R.table;
  var note = R.note;
  var escapeHtml = R.escapeHtml;
  var chart = R.chart;
  var seconds = R.seconds;

  function shadeWarmup(ranges) {
    return function (canvas, area, g) {
      canvas.fillStyle = 'rgba(255, 190, 60, 0.28)';
      ranges.forEach(function (range) {
        var left = g.toDomXCoord(range[0]);
        var right = g.toDomXCoord(range[1]);
        canvas.fillRect(left, area.y, right - left, area.h);
      });
    };
  }

  function timeSeries(container, series, meta) {
    var p99 = 'p99 latency (us)';
    var secondAxis = {};
    secondAxis[p99] = {axis: 'y2', strokePattern: [6, 3], strokeWidth: 1.5, color: '#b00'};
    var resolution = 'one point per ' + num(series.interval_ns / 1e6) + ' ms' +
      (series.merged_intervals > 1 ? ' (' + series.merged_intervals +
        ' recorded intervals merged per point to bound memory)' : '');
    container.appendChild(note(series.points + ' points, ' + resolution +
      (series.warmup.length ? '; warm-up shaded' : '') +
      (series.workers > 1 && !series.per_worker ? '; ' + series.workers +
        ' workers: the line of all only' : '') + '. Drag to zoom, double-click to reset.'));
    [['throughput', 'MiB/s'], ['iops', 'ops/s']].forEach(function (kind) {
      chart(container, series[kind[0]], {
        stepPlot: true, series: secondAxis, ylabel: kind[1], y2label: p99,
        xlabel: 'seconds since the phase started', includeZero: true,
        axes: {y2: {independentTicks: true, drawGrid: false},
               x: {axisLabelFormatter: seconds, valueFormatter: seconds}},
        underlayCallback: shadeWarmup(series.warmup), showRangeSelector: true,
        rangeSelectorHeight: 24, height: 260
      }, Object.assign({kind: 'time_series_' + kind[0]}, meta));
    });
  }

  function latencyCurve(container, cdf, meta) {
    if (!cdf.rows.length) {
      container.appendChild(note('no latency samples'));
      return;
    }
    chart(container, cdf, {
      axes: {x: {logscale: true}}, xlabel: 'latency (us), log scale',
      ylabel: '% of ops faster', drawPoints: true, pointSize: 2, valueRange: [0, 100.5],
      height: 220
    }, Object.assign({kind: 'latency_cdf'}, meta));
  }

  // Issue 29: the findings with their evidence, the devices beside the application on the
  // time series' axis, and --explain's latency split by layer as stacked bars.
  var LAYERS = [['fs_kernel', 'fs + kernel', '#6a8fc8'], ['queue', 'block queue', '#e0a040'],
                ['device', 'device', '#c0504d'], ['off_cpu', 'off CPU', '#9a9a9a']];

  function latencyLayers(container, layers) {
    if (layers.unavailable !== null) {
      container.appendChild(note('latency by layer (--explain): unavailable: ' +
                                 layers.unavailable));
      return;
    }
    var rows = [];
    layers.calls.forEach(function (call) {
      call.rows.forEach(function (row) { rows.push({call: call.call, row: row}); });
    });
    if (!rows.length) return;
    var width = 640;
    var left = 150;
    var barWidth = width - left - 100;
    var barHeight = 16;
    var height = rows.length * (barHeight + 4) + 30;
    var picture = svg('svg', {width: width, height: height, class: 'layers',
                              viewBox: '0 0 ' + width + ' ' + height});
    rows.forEach(function (item, i) {
      var y = 4 + i * (barHeight + 4);
      picture.appendChild(svg('text', {x: 4, y: y + 12, class: 'label'},
                              item.call + ' ' + item.row.split));
      var x = left;
      LAYERS.forEach(function (layer) {
        var share = item.row.layers[layer[0]];
        var w = barWidth * share / 100;
        picture.appendChild(svg('rect', {x: x, y: y, width: Math.max(0, w), height: barHeight,
                                         fill: layer[2], class: 'layer', 'data-layer': layer[0],
                                         'data-percent': share},
                                svg('title', {}, layer[1] + ' ' + num(share) + ' %')));
        x += w;
      });
      picture.appendChild(svg('text', {x: left + barWidth + 4, y: y + 12, class: 'value'},
                              num(item.row.latency_us) + ' us'));
    });
    var lx = left;
    LAYERS.forEach(function (layer) {
      picture.appendChild(svg('rect', {x: lx, y: height - 20, width: 10, height: 10,
                                       fill: layer[2]}));
      picture.appendChild(svg('text', {x: lx + 14, y: height - 11, class: 'label'}, layer[1]));
      lx += 110;
    });
    container.appendChild(el('div', {class: 'latency-layers'}, [
      el('p', {}, 'Latency by layer (--explain, eBPF): each system call\'s mean, p50 and p99, ' +
         'as % of its latency'), picture]));
  }

  function explainSection(container, explain, meta) {
    var box = container.appendChild(el('div', {class: 'explain'}));
    if (explain.findings.length) {
      box.appendChild(el('p', {}, 'Findings (what the kernel and the devices did):'));
      box.appendChild(el('ul', {class: 'findings'}, explain.findings.map(function (f) {
        return el('li', {'data-finding': f.name}, [el('code', {}, f.name), ': ',
                                                   el('span', {class: 'evidence'}, f.evidence)]);
      })));
    }
    if (explain.devices.length) {
      box.appendChild(table(['device', 'read', 'written', 'util', 'queue', 'r_await', 'w_await'],
        explain.devices.map(function (d) {
          return [d.name, num(d.read_bytes / 1048576) + ' MiB',
                  num(d.write_bytes / 1048576) + ' MiB', num(d.util_percent) + ' %',
                  num(d.avg_queue_size), num(d.r_await_ms) + ' ms', num(d.w_await_ms) + ' ms'];
        }), 'facts devices'));
    }
    var series = explain.device_series;
    if (series) {
      box.appendChild(note('The devices over time, on the time series\' axis (/proc/diskstats ' +
                           'read at each interval\'s end).'));
      var axes = {x: {axisLabelFormatter: seconds, valueFormatter: seconds}};
      chart(box, series.throughput, {
        stepPlot: true, ylabel: 'MiB/s', xlabel: 'seconds since the phase started',
        includeZero: true, axes: axes, height: 220
      }, Object.assign({kind: 'device_throughput'}, meta));
      var queues = {};
      series.util.labels.slice(1 + series.devices).forEach(function (label) {
        queues[label] = {axis: 'y2', strokePattern: [6, 3]};
      });
      chart(box, series.util, {
        stepPlot: true, ylabel: 'util %', y2label: 'queue size', series: queues,
        xlabel: 'seconds since the phase started', includeZero: true,
        axes: {x: axes.x, y: {valueRange: [0, 100.5]},
               y2: {independentTicks: true, drawGrid: false}}, height: 220
      }, Object.assign({kind: 'device_util'}, meta));
    }
    if (explain.latency_layers) latencyLayers(box, explain.latency_layers);
  }

  // Horizontal bars, one per worker, with Jain's fairness index.
  function workerBars(container, workers) {
    var rows = workers.rows;
    var width = 560;
    var barHeight = 16;
    var left = 80;
    var max = workers.max > 0 ? workers.max : 1;
    var height = rows.length * (barHeight + 4) + 8;
    var picture = svg('svg', {width: width, height: height, class: 'bars',
                              viewBox: '0 0 ' + width + ' ' + height});
    rows.forEach(function (row, i) {
      var y = 4 + i * (barHeight + 4);
      var w = Math.max(1, (width - left - 110) * row.value / max);
      picture.appendChild(svg('text', {x: 4, y: y + 12, class: 'label'}, 'worker ' + row.index));
      picture.appendChild(svg('rect', {x: left, y: y, width: w, height: barHeight,
                                       class: row.status === 'ok' ? 'bar' : 'bar bad'},
                              svg('title', {}, 'target ' + row.target_index + ', p99 ' +
                                  num(row.p99_us) + ' us')));
      picture.appendChild(svg('text', {x: left + w + 4, y: y + 12, class: 'value'},
                              num(row.value) + ' ' + workers.unit));
    });
    container.appendChild(el('div', {class: 'workers'}, [
      el('p', {}, 'Per-worker ' + workers.metric + ': Jain\'s fairness index ' +
         workers.fairness.toFixed(3) + ' (1 = equal shares), min ' + num(workers.min) +
         ', max ' + num(workers.max) + ' ' + workers.unit + ', spread ' +
         num(workers.spread_percent) + ' % of the mean'),
      picture]));
  }

  // Per op kind, as the text report's op table: ops, MiB, MiB/s and IOPS over the phase's wall
  // time, latency of the kind's timed ops in us ('-' without one), failed ops.
  function opKindsTable(container, phase) {
    var us = function (value) { return value === null ? '-' : num(value) + ' us'; };
    container.appendChild(note('By op kind (MiB = 2^20 bytes; MiB/s and IOPS over the ' +
                               "phase's wall time; latency in us):"));
    container.appendChild(table(
      ['op', 'ops', 'MiB', 'MiB/s', 'IOPS', 'mean', 'p50', 'p99', 'p99.9', 'max', 'errors'],
      phase.op_kinds.map(function (kind) {
        var lat = kind.latency_us;
        return [kind.name, String(kind.ops), num(kind.bytes / 1048576),
                num(kind.throughput_mib_s) + ' MiB/s', num(kind.ops_per_s), us(lat.mean),
                us(lat.p50), us(lat.p99), us(lat.p99_9), us(lat.max), String(kind.errors)];
      }), 'facts op-kinds'));
  }

  function phaseSection(parent, step, phase, runIndex) {
    var meta = {run: runIndex, step: step.index, phase: phase.index};
    var box = parent.appendChild(el('section', {class: 'phase'}));
    box.appendChild(el('h4', {}, ['phase ', el('q', {}, phase.name), ' ',
                                  el('span', {class: 'status ' + phase.status}, phase.status)]));
    if (phase.message) box.appendChild(note(phase.message));
    var lat = phase.latency_us;
    // A figure a classic tool's result lacks is null: say why ("too fast to measure (+++++)",
    // "not reported"), never 0.
    var figure = function (value, metric, unit) {
      if (value !== null && value !== undefined) return num(value) + unit;
      return phase.unavailable[metric] || '-';
    };
    if (phase.reported) {
      box.appendChild(note('Figures as the tool printed them: it gives no op counts, per-worker ' +
                           'figures, latency distribution or time series.'));
      box.appendChild(table(
        ['throughput', 'IOPS', 'mean', 'p50', 'p99', 'p99.9', 'max', 'CPU'],
        [[figure(phase.throughput_mib_s, 'throughput', ' MiB/s'),
          figure(phase.ops_per_s, 'iops', ''), figure(lat.mean, 'lat_mean', ' us'),
          figure(lat.p50, 'lat_p50', ' us'), figure(lat.p99, 'lat_p99', ' us'),
          figure(lat.p99_9, 'lat_p99_9', ' us'), figure(lat.max, 'lat_max', ' us'),
          figure(phase.cpu_percent, 'cpu', ' %')]]));
      return;
    }
    box.appendChild(table(
      ['throughput', 'IOPS', 'ops', 'wall time', 'mean', 'p50', 'p99', 'p99.9', 'max', 'CPU'],
      [[num(phase.throughput_mib_s) + ' MiB/s', num(phase.ops_per_s), num(phase.ops),
        num(phase.wall_ns / 1e9) + ' s', num(lat.mean) + ' us', num(lat.p50) + ' us',
        num(lat.p99) + ' us', num(lat.p99_9) + ' us', num(lat.max) + ' us',
        num(phase.cpu_percent) + ' %']]));
    if (phase.op_kinds.length > 1) opKindsTable(box, phase);
    if (phase.time_series) {
      timeSeries(box, phase.time_series, meta);
    } else {
      box.appendChild(note('No time series in this result (the document has no ' +
                           '"time_series" for this phase).'));
    }
    latencyCurve(box, phase.latency_cdf, meta);
    if (phase.steady_state) R.steadyStateSection(box, phase.steady_state, meta);
    if (phase.workers.rows.length > 1) workerBars(box, phase.workers);
    if (phase.explain) explainSection(box, phase.explain, meta);
  }

  function stepSection(parent, step, runIndex) {
    var title = 'step ' + (step.index + 1) + ': ' + step.name + ' (' + step.workload + ')';
    if (step.sweep_point !== null) title += ', point ' + step.sweep_point;
    if (step.repetition > 1) title += ', repetition ' + step.repetition;
    var box = parent.appendChild(el('details', {class: 'step', open: ''}));
    box.appendChild(el('summary', {}, [title, ' ',
                                       el('span', {class: 'status ' + step.status}, step.status)]));
    if (step.message) box.appendChild(note(step.message));
    box.appendChild(el('p', {class: 'params'}, ['engine ', el('code', {}, step.engine || 'psync'),
      '; params: ', el('code', {}, step.params.map(function (p) {
        return p[0] + '=' + p[1];
      }).join(' '))]));
    step.warnings.forEach(function (w) { box.appendChild(el('p', {class: 'warning'}, w)); });
    if (step.pts) R.ptsSection(box, step.pts, {run: runIndex, step: step.index});
    step.phases.forEach(function (phase) { phaseSection(box, step, phase, runIndex); });
  }

  function sweepSection(parent, sweep, runIndex, sweepIndex) {
    var box = parent.appendChild(el('section', {class: 'sweep'}));
    box.appendChild(el('h3', {}, 'Sweep of ' + sweep.param + ': step ' + sweep.step +
                              (sweep.repeat > 1 ? ' (' + sweep.repeat +
                                ' repetitions per point: mean and 95 % confidence band)' : '')));
    sweep.phases.forEach(function (phase) {
      box.appendChild(el('h4', {}, ['phase ', el('q', {}, phase.phase)]));
      var rateLabel = phase.labels[1];
      var p99 = phase.labels[2];
      var series = {};
      series[p99] = {axis: 'y2', strokePattern: [6, 3], color: '#b00'};
      var opts = {
        customBars: true, drawPoints: true, pointSize: 3, series: series,
        xlabel: sweep.param, ylabel: rateLabel, y2label: p99, includeZero: true,
        axes: {y2: {independentTicks: true, drawGrid: false},
               x: {pixelsPerLabel: 40}}, xRangePad: 24, height: 260
      };
      if (!sweep.numeric) {
        var label = function (x) { return sweep.values[Math.round(x) - 1] || ''; };
        opts.axes.x.axisLabelFormatter = label;
        opts.axes.x.valueFormatter = label;
      }
      var g = chart(box, phase, opts, {kind: 'sweep', run: runIndex, sweep: sweepIndex,
                                      step: sweep.step, phase: phase.phase});
      if (g && phase.peak) {
        g.setAnnotations([{series: rateLabel, x: phase.peak.x, shortText: 'peak',
                           text: escapeHtml('peak at ' + sweep.param + ' = ' + phase.peak.point),
                           width: 36, height: 16, cssClass: 'peak'}]);
      }
      box.appendChild(table(
        [sweep.param, 'runs', 'workers', 'MiB/s', 'IOPS', 'p99 (us)', 'CPU %', 'fairness', ''],
        phase.table.map(function (r) {
          return [r.point, String(r.samples), String(r.workers), num(r.throughput_mib_s),
                  num(r.ops_per_s), num(r.p99_us), num(r.cpu_percent), r.fairness.toFixed(3),
                  r.peak ? 'peak' : ''];
        })));
    });
  }

  function repetitionSection(parent, rep, runIndex, repIndex) {
    var box = parent.appendChild(el('section', {class: 'repetitions'}));
    box.appendChild(el('h4', {}, ['step ' + rep.step + (rep.point !== null ? ', point ' +
                                  rep.point : '') + ', phase ', el('q', {}, rep.phase)]));
    box.appendChild(table(['metric', 'n', 'mean', '95 % CI', 'stddev', 'CV', 'values'],
      rep.metrics.map(function (m) {
        return [m.metric, String(m.n), num(m.mean) + ' ' + m.unit,
                num(m.ci95_low) + ' .. ' + num(m.ci95_high), num(m.stddev),
                num(m.cv_percent) + ' %' + (m.high_variation ? ' (high)' : ''),
                m.values.map(num).join(', ')];
      })));
    if (rep.chart.rows.length) {
      var series = {};
      series[rep.chart.labels[1]] = {drawPoints: true, pointSize: 4, strokeWidth: 0};
      series[rep.chart.labels[2]] = {strokePattern: [4, 2]};
      chart(box, rep.chart, {customBars: true, series: series, xlabel: 'repetition',
                             ylabel: rep.chart.labels[1], includeZero: true, height: 200,
                             axes: {x: {pixelsPerLabel: 30}}},
            {kind: 'repetitions', run: runIndex, repetition: repIndex, step: rep.step, point: rep.point,
             phase: rep.phase});
    }
  }

  function bonnieSection(tables) {
    var box = el('section', {class: 'bonnie'});
    box.appendChild(el('h3', {}, 'bonnie++'));
    box.appendChild(note('As bon_csv2html shows bonnie++\'s CSV; each column shaded from red ' +
      '(worst) to green (best); "too fast to measure": bonnie++ printed +++++ (the test took ' +
      'under 0.5 s), not zero.'));
    tables.forEach(function (t) {
      var groups = el('tr', {}, t.groups.map(function (g) {
        return el('th', {colspan: g.span}, g.title);
      }));
      var columns = el('tr', {}, t.columns.map(function (c) { return el('th', {}, c); }));
      var rows = t.rows.map(function (row) {
        return el('tr', {}, row.cells.map(function (cell) {
          var td = el('td', {class: 'bonnie-' + cell.kind}, cell.text);
          if (cell.shade !== null) {
            td.style.backgroundColor = 'hsl(' + Math.round(cell.shade * 120) + ', 70%, 80%)';
          }
          return td;
        }));
      });
      box.appendChild(el('h4', {}, t.title));
      box.appendChild(el('table', {class: 'bonnie-table'},
                         [el('thead', {}, [groups, columns]), el('tbody', {}, rows)]));
    });
    return box;
  }

  function runSection(parent, run, runIndex) {
    var box = parent.appendChild(el('section', {class: 'run', id: 'run-' + runIndex}));
    box.appendChild(el('h2', {}, ['Run ' + (runIndex + 1) + ': ', el('code', {}, run.label), ' ',
                                  el('span', {class: 'status ' + run.status}, run.status)]));
    var env = run.environment.slice();
    if (!run.source) env.push(['schema', run.schema]);  // a classic tool's output has none
    if (run.suite) {
      env.push(['suite', run.suite.name + ' (' + run.suite.source + ')' +
                (run.suite.complete ? '' : ', incomplete')]);
    }
    box.appendChild(el('h3', {}, 'Environment'));
    box.appendChild(table(null, env.map(function (r) { return [r[0], r[1]]; })));
    if (run.targets.length) {
      box.appendChild(table(['target', 'fs', 'mount point', 'options', 'device', 'size'],
        run.targets.map(function (t) {
          return [t.path, t.fs_type, t.mount_point, t.mount_options, t.device,
                  num(t.size_bytes / 1073741824) + ' GiB'];
        })));
    }
    if (run.source) {
      box.appendChild(el('h3', {}, 'Source'));
      box.appendChild(note('Read from ' + run.source.format + ' output' +
                           (run.source.tool_version ? ' (' + run.source.tool_version + ')' : '') +
                           (run.source.not_mapped.length ? '; not mapped onto phases and ' +
                            'metrics:' : '; every part mapped.')));
      if (run.source.not_mapped.length) {
        box.appendChild(el('ul', {}, run.source.not_mapped.map(function (line) {
          return el('li', {}, line);
        })));
      }
    }
    box.appendChild(el('h3', {}, 'Invocation'));
    if (run.source) {
      box.appendChild(note('not recorded (a classic tool\'s output)'));
    } else if (run.invocation) {
      box.appendChild(el('pre', {class: 'command'}, run.invocation.command));
      box.appendChild(note('in ' + run.invocation.working_directory +
                           (run.invocation.repeated_from ? '; repeat of ' +
                            run.invocation.repeated_from : '')));
    } else {
      box.appendChild(note('not recorded (a result of schema iobench-result/1)'));
    }
    if (run.bonnie.length) box.appendChild(bonnieSection(run.bonnie));
    run.sweeps.forEach(function (sweep, i) { sweepSection(box, sweep, runIndex, i); });
    if (run.repetitions.length) {
      box.appendChild(el('h3', {}, 'Repetitions: mean and 95 % confidence interval ' +
                                   '(Student\'s t)'));
      run.repetitions.forEach(function (rep, i) { repetitionSection(box, rep, runIndex, i); });
    }
    box.appendChild(el('h3', {}, 'Steps'));
    run.steps.forEach(function (step) { stepSection(box, step, runIndex); });
  }

  function selfCheck() {
    var layout = R.compareBarsLayout();
    var ok = errors.length === 0 && layout.clipped === 0 && checks.every(function (c) {
      return c.drawn === c.expected;
    });
    var box = el('div', {id: 'iobench-selfcheck', 'data-status': ok ? 'ok' : 'fail',
                         'data-charts': checks.length, 'data-errors': errors.length,
                         'data-compare-bars': layout.pictures,
                         'data-compare-clipped': layout.clipped});
    checks.forEach(function (c) {
      var attrs = {class: 'check', 'data-expected': c.expected, 'data-drawn': c.drawn};
      Object.keys(c.meta).forEach(function (key) { attrs['data-' + key] = c.meta[key]; });
      box.appendChild(el('span', attrs, c.meta.kind + ' ' + c.drawn + '/' + c.expected + ' '));
    });
    var details = el('details', {class: 'selfcheck'}, [
      el('summary', {}, 'page self-check: ' + checks.length + ' charts, ' +
         (ok ? 'all drawn with every point' : 'PROBLEMS')), box]);
    document.body.appendChild(details);
  }

  function main() {
    var model = JSON.parse(document.getElementById('iobench-data').textContent);
    var root = document.getElementById('iobench-report');
    root.appendChild(el('h1', {}, model.title));
    var toc = el('ul', {class: 'toc'});
    model.runs.forEach(function (run, i) {
      toc.appendChild(el('li', {}, el('a', {href: '#run-' + i}, 'Run ' + (i + 1) + ': ' +
                                       run.label)));
    });
    if (model.comparison) {
      toc.appendChild(el('li', {}, el('a', {href: '#comparison'}, 'Runs side by side')));
    }
    root.appendChild(toc);
    if (model.comparison) root.appendChild(R.comparisonSection(model.comparison));
    model.runs.forEach(function (run, i) {
      try {
        runSection(root, run, i);
      } catch (e) {
        recordError('run ' + (i + 1) + ': ' + e);
      }
    });
  }

  try {
    if (typeof Dygraph === 'undefined') throw new Error('dygraphs did not load');
    main();
  } catch (e) {
    recordError(e && e.stack ? e.stack : e);
  }
  selfCheck();
  if (errors.length) console.error('iobench report: ' + errors.join('; '));
})(IobenchReport);
