// The HTML report's SNIA PTS plots (pts_model.cpp prepares them), drawn here as SVG: the
// steady-state rounds (also of any phase run with steady_state=), IOPS against block size per
// R/W mix and its heat map (mix x block size), throughput and latency bars, WSAT's IOPS over time
// and over the bytes written, DIRTH's IOPS against mean response time per thread count and the
// response-time histograms. Every chart's data points are elements of class "point"; each chart
// adds a self-check entry (the model's points and the points drawn) to IobenchReport.checks.
(function (R) {
  'use strict';
  var el = R.el;
  var svg = R.svg;
  var num = R.num;
  var note = R.note;
  var table = R.table;
  var COLOURS = ['#1f77b4', '#d62728', '#2ca02c', '#ff7f0e', '#9467bd', '#8c564b', '#e377c2',
                 '#17becf'];
  var WIDTH = 760;
  var HEIGHT = 300;
  var LEFT = 70;
  var RIGHT = 250;  // the legend
  var TOP = 12;
  var BOTTOM = 46;

  function addCheck(meta, expected, picture) {
    R.checks.push({meta: meta, expected: expected,
                   drawn: picture.querySelectorAll('.point').length});
  }

  function range(values, includeZero, log) {
    var finite = values.filter(function (v) { return isFinite(v) && (!log || v > 0); });
    var lo = finite.length ? Math.min.apply(null, finite) : 0;
    var hi = finite.length ? Math.max.apply(null, finite) : 1;
    if (includeZero && !log) lo = Math.min(0, lo);
    if (hi === lo) {
      hi = lo === 0 ? 1 : lo * 1.1;
      if (!log && lo !== 0) lo = lo * 0.9;
    }
    if (log && lo <= 0) lo = hi / 10;
    return [lo, hi];
  }

  // Maps [lo, hi] onto [a, b], logarithmically when `log`.
  function scale(extent, a, b, log) {
    var lo = log ? Math.log(extent[0]) : extent[0];
    var hi = log ? Math.log(extent[1]) : extent[1];
    return function (v) {
      var x = log ? Math.log(Math.max(v, extent[0])) : v;
      return a + (x - lo) / (hi - lo) * (b - a);
    };
  }

  function ticks(extent, log) {
    var out = [];
    for (var i = 0; i <= 4; i++) {
      out.push(log ? Math.exp(Math.log(extent[0]) +
                              (Math.log(extent[1]) - Math.log(extent[0])) * i / 4)
        : extent[0] + (extent[1] - extent[0]) * i / 4);
    }
    return out;
  }

  function frame(spec) {
    var picture = svg('svg', {width: WIDTH, height: HEIGHT, class: 'pts-chart',
                              viewBox: '0 0 ' + WIDTH + ' ' + HEIGHT});
    picture.appendChild(svg('line', {x1: LEFT, y1: TOP, x2: LEFT, y2: HEIGHT - BOTTOM,
                                     class: 'axis', stroke: '#444'}));
    picture.appendChild(svg('line', {x1: LEFT, y1: HEIGHT - BOTTOM, x2: WIDTH - RIGHT,
                                     y2: HEIGHT - BOTTOM, class: 'axis', stroke: '#444'}));
    picture.appendChild(svg('text', {x: (LEFT + WIDTH - RIGHT) / 2, y: HEIGHT - 6,
                                     'text-anchor': 'middle', class: 'label'}, spec.xlabel));
    picture.appendChild(svg('text', {x: 12, y: (TOP + HEIGHT - BOTTOM) / 2, class: 'label',
                                     'text-anchor': 'middle',
                                     transform: 'rotate(-90 12 ' + (TOP + HEIGHT - BOTTOM) / 2 +
                                       ')'}, spec.ylabel));
    return picture;
  }

  function legend(picture, entries) {
    entries.forEach(function (entry, i) {
      var y = TOP + 4 + i * 18;
      picture.appendChild(svg('rect', {x: WIDTH - RIGHT + 12, y: y, width: 12, height: 10,
                                       fill: entry.colour, 'fill-opacity': entry.opacity || 1}));
      // A long name is cut in the legend; its title holds all of it.
      var text = entry.name.length > 36 ? entry.name.slice(0, 35) + '\u2026' : entry.name;
      picture.appendChild(svg('text', {x: WIDTH - RIGHT + 28, y: y + 9, class: 'label'},
                              [text, svg('title', {}, entry.name)]));
    });
  }

  // A line chart: spec = {xlabel, ylabel, logx, xticks: null | [[x, label]], series: [{name,
  // points: [[x, y, label]]}], bands: [{name, low, high, x0, x1}], lines: [{name, points}]}.
  function lineChart(container, spec, meta) {
    var xs = [];
    var ys = [];
    spec.series.forEach(function (s) {
      s.points.forEach(function (p) { xs.push(p[0]); ys.push(p[1]); });
    });
    (spec.bands || []).forEach(function (b) { ys.push(b.low, b.high); });
    var xExtent = range(xs, false, spec.logx);
    var yExtent = range(ys, true, false);
    var x = scale(xExtent, LEFT + 8, WIDTH - RIGHT - 8, spec.logx);
    var y = scale(yExtent, HEIGHT - BOTTOM, TOP, false);
    var picture = frame(spec);
    ticks(yExtent, false).forEach(function (v) {
      picture.appendChild(svg('line', {x1: LEFT - 4, y1: y(v), x2: LEFT, y2: y(v),
                                       stroke: '#444'}));
      picture.appendChild(svg('text', {x: LEFT - 6, y: y(v) + 4, 'text-anchor': 'end',
                                       class: 'tick'}, num(v)));
    });
    (spec.xticks || ticks(xExtent, spec.logx).map(function (v) { return [v, num(v)]; }))
      .forEach(function (t) {
        picture.appendChild(svg('text', {x: x(t[0]), y: HEIGHT - BOTTOM + 16,
                                         'text-anchor': 'middle', class: 'tick'}, t[1]));
      });
    var entries = [];
    (spec.bands || []).forEach(function (b, i) {
      var colour = i === 0 ? '#f0c040' : '#60b060';
      picture.appendChild(svg('rect', {x: x(b.x0), y: y(b.high), class: 'band',
                                       width: Math.max(1, x(b.x1) - x(b.x0)),
                                       height: Math.max(1, y(b.low) - y(b.high)),
                                       fill: colour, 'fill-opacity': 0.25},
                              svg('title', {}, b.name + ': ' + num(b.low) + ' .. ' +
                                  num(b.high))));
      entries.push({name: b.name, colour: colour, opacity: 0.4});
    });
    (spec.lines || []).forEach(function (line) {
      picture.appendChild(svg('polyline', {class: 'guide', fill: 'none', stroke: line.colour,
                                           'stroke-dasharray': line.dash || '',
                                           points: line.points.map(function (p) {
                                             return x(p[0]) + ',' + y(p[1]);
                                           }).join(' ')}));
      entries.push({name: line.name, colour: line.colour});
    });
    var expected = 0;
    spec.series.forEach(function (s, i) {
      var colour = COLOURS[i % COLOURS.length];
      expected += s.points.length;
      picture.appendChild(svg('polyline', {class: 'series', fill: 'none', stroke: colour,
                                           points: s.points.map(function (p) {
                                             return x(p[0]) + ',' + y(p[1]);
                                           }).join(' ')}));
      s.points.forEach(function (p) {
        picture.appendChild(svg('circle', {cx: x(p[0]), cy: y(p[1]), r: 3, fill: colour,
                                           class: 'point'},
                                svg('title', {}, (p[2] ? p[2] + ': ' : '') + num(p[0]) + ', ' +
                                    num(p[1]))));
      });
      entries.push({name: s.name, colour: colour});
    });
    (spec.markers || []).forEach(function (m) {
      picture.appendChild(svg('circle', {cx: x(m.x), cy: y(m.y), r: 7, fill: 'none',
                                         stroke: '#000', class: 'marker'},
                              svg('title', {}, m.name)));
    });
    legend(picture, entries.slice(0, 14));
    container.appendChild(el('div', {class: 'pts-plot'}, picture));
    addCheck(meta, expected, picture);
  }

  // Vertical bars: spec = {ylabel, bars: [{label, value}]}.
  function barChart(container, spec, meta) {
    var values = spec.bars.map(function (b) { return b.value; });
    var yExtent = range(values, true, false);
    var y = scale(yExtent, HEIGHT - BOTTOM, TOP, false);
    var picture = frame({xlabel: spec.xlabel, ylabel: spec.ylabel});
    var slot = (WIDTH - RIGHT - LEFT - 8) / Math.max(1, spec.bars.length);
    ticks(yExtent, false).forEach(function (v) {
      picture.appendChild(svg('text', {x: LEFT - 6, y: y(v) + 4, 'text-anchor': 'end',
                                       class: 'tick'}, num(v)));
    });
    spec.bars.forEach(function (b, i) {
      var x0 = LEFT + 4 + i * slot;
      picture.appendChild(svg('rect', {x: x0 + slot * 0.1, y: y(b.value), width: slot * 0.8,
                                       height: Math.max(0, y(yExtent[0]) - y(b.value)),
                                       fill: COLOURS[0], class: 'point pts-bar'},
                              svg('title', {}, b.label + ': ' + num(b.value))));
      picture.appendChild(svg('text', {x: x0 + slot / 2, y: HEIGHT - BOTTOM + 16,
                                       'text-anchor': 'middle', class: 'tick'}, b.label));
    });
    container.appendChild(el('div', {class: 'pts-plot'}, picture));
    addCheck(meta, spec.bars.length, picture);
  }

  // PTS's 3-D plot as a heat map: rows R/W mixes, columns block sizes, colour = value (log).
  function heatMap(container, matrix, metric, order, meta) {
    var values = [];
    metric.values.forEach(function (row) { values.push.apply(values, row); });
    var extent = range(values, false, true);
    var cellW = (WIDTH - LEFT - 20) / Math.max(1, order.length);
    var cellH = 24;
    var height = TOP + matrix.mixes.length * cellH + 40;
    var picture = svg('svg', {width: WIDTH, height: height, class: 'pts-chart pts-heatmap',
                              viewBox: '0 0 ' + WIDTH + ' ' + height});
    matrix.mixes.forEach(function (mix, r) {
      var y0 = TOP + r * cellH;
      picture.appendChild(svg('text', {x: LEFT - 6, y: y0 + 16, 'text-anchor': 'end',
                                       class: 'label'}, mix));
      order.forEach(function (c, k) {
        var value = metric.values[r][c];
        var share = value > 0 ? (Math.log(value) - Math.log(extent[0])) /
          Math.max(1e-9, Math.log(extent[1]) - Math.log(extent[0])) : 0;
        picture.appendChild(svg('rect', {x: LEFT + k * cellW, y: y0, width: cellW - 1,
                                         height: cellH - 1, class: 'point cell',
                                         fill: 'hsl(' + Math.round(220 - 200 * share) +
                                           ', 70%, 60%)'},
                                svg('title', {}, mix + ' ' + matrix.block_size_names[c] + ': ' +
                                    num(value) + ' ' + metric.unit)));
        picture.appendChild(svg('text', {x: LEFT + k * cellW + cellW / 2, y: y0 + 16,
                                         'text-anchor': 'middle', class: 'tick'}, num(value)));
      });
    });
    order.forEach(function (c, k) {
      picture.appendChild(svg('text', {x: LEFT + k * cellW + cellW / 2,
                                       y: TOP + matrix.mixes.length * cellH + 16,
                                       'text-anchor': 'middle', class: 'label'},
                              matrix.block_size_names[c]));
    });
    container.appendChild(el('p', {}, metric.name + ' (' + metric.unit + ') by R/W mix (rows) ' +
                             'and block size (columns); colour: log scale, blue low, red high'));
    container.appendChild(el('div', {class: 'pts-plot'}, picture));
    addCheck(meta, values.length, picture);
  }

  // The tracked rounds with the steady-state window, its mean, bands and best-fit line.
  function steadyChart(container, steady, meta, title) {
    container.appendChild(el('p', {}, title));
    if (!steady.rounds.length) {
      container.appendChild(note('no rounds'));
      return;
    }
    var spec = {xlabel: 'round', ylabel: steady.unit, xticks: null, bands: [], lines: [],
                series: [{name: steady.unit + ' per round', points: steady.rounds}]};
    if (steady.first !== null) {
      steady.bands.forEach(function (b) {
        spec.bands.push({name: b.name, low: b.low, high: b.high, x0: steady.first,
                         x1: steady.last});
      });
      var mid = (steady.first + steady.last) / 2;
      spec.lines.push({name: 'window mean ' + num(steady.mean), colour: '#000', dash: '6 3',
                       points: [[steady.first, steady.mean], [steady.last, steady.mean]]});
      spec.lines.push({name: 'best-fit line, slope ' + num(steady.slope) + ' per round',
                       colour: '#b00',
                       points: [[steady.first, steady.mean + steady.slope * (steady.first - mid)],
                                [steady.last, steady.mean + steady.slope * (steady.last - mid)]]});
      container.appendChild(note('window rounds ' + steady.first + '-' + steady.last +
        ' (' + steady.criterion + '): mean ' + num(steady.mean) + ' ' + steady.unit +
        (steady.data_excursion_percent !== null ? ', data excursion ' +
          num(steady.data_excursion_percent) + ' %, best-fit excursion ' +
          num(steady.fit_excursion_percent) + ' %' : '') +
        '; steady: ' + (steady.steady ? 'yes' : 'no')));
    } else {
      container.appendChild(note('fewer rounds than a window: not judged'));
    }
    if (steady.dropped) {
      container.appendChild(note('the ' + steady.dropped + ' oldest samples were not kept ' +
                                 '(a result keeps the last ' + steady.rounds.length + ')'));
    }
    lineChart(container, spec, meta);
  }

  function matrixPlots(container, pts, meta) {
    var matrix = pts.matrix;
    // Block sizes ascending on the x axis.
    var order = matrix.block_sizes.map(function (b, i) { return i; });
    order.sort(function (a, b) { return matrix.block_sizes[a] - matrix.block_sizes[b]; });
    if (pts.test === 'iops') {
      var metric = matrix.metrics[0];
      container.appendChild(el('p', {}, 'IOPS against block size, one line per R/W mix ' +
                               '(block size on a log scale)'));
      lineChart(container, {
        xlabel: 'block size', ylabel: 'IOPS', logx: true,
        xticks: order.map(function (c) {
          return [matrix.block_sizes[c], matrix.block_size_names[c]];
        }),
        series: matrix.mixes.map(function (mix, r) {
          return {name: mix, points: order.map(function (c) {
            return [matrix.block_sizes[c], metric.values[r][c], matrix.block_size_names[c]];
          })};
        })
      }, Object.assign({kind: 'pts_iops_bs'}, meta));
      heatMap(container, matrix, metric, order, Object.assign({kind: 'pts_heatmap'}, meta));
      return;
    }
    matrix.metrics.forEach(function (metric, m) {
      var bars = [];
      var rows = [];
      matrix.mixes.forEach(function (mix, r) {
        order.forEach(function (c) {
          bars.push({label: mix + ' ' + matrix.block_size_names[c], value: metric.values[r][c]});
          rows.push([mix, matrix.block_size_names[c], num(metric.values[r][c])]);
        });
      });
      container.appendChild(el('p', {}, metric.name + ' (' + metric.unit + ') per R/W mix and ' +
                               'block size'));
      barChart(container, {xlabel: 'R/W mix, block size', ylabel: metric.unit, bars: bars},
               Object.assign({kind: 'pts_bars', chart: m}, meta));
      container.appendChild(table(['R/W mix', 'block size', metric.name + ' (' + metric.unit +
                                   ')'], rows));
    });
  }

  function wsatPlots(container, wsat, meta) {
    container.appendChild(el('p', {}, 'IOPS over time (one point per round of ' +
                             num(wsat.round_minutes) + ' min)'));
    lineChart(container, {xlabel: 'minutes', ylabel: 'IOPS', series: [{
      name: 'IOPS', points: wsat.rows.map(function (r) { return [r[1], r[2], 'round ' + r[0]]; })
    }]}, Object.assign({kind: 'pts_wsat_time'}, meta));
    container.appendChild(el('p', {}, 'IOPS over the data written (GB = 10^9 bytes)'));
    lineChart(container, {xlabel: 'GB written', ylabel: 'IOPS', series: [{
      name: 'IOPS', points: wsat.rows.map(function (r) {
        return [r[3], r[2], 'round ' + r[0] + ', ' + num(r[4]) + ' x capacity'];
      })
    }]}, Object.assign({kind: 'pts_wsat_written'}, meta));
  }

  function dirthPlots(container, dirth, meta) {
    var points = {};
    dirth.points.forEach(function (p) { points[p.name] = p; });
    container.appendChild(el('p', {}, 'Demand intensity: IOPS against mean response time, one ' +
                             'line per thread count (TC), its points the queue depths (QD); ' +
                             'circled: the max-IOPS and the minimum-response-time points'));
    lineChart(container, {
      xlabel: 'IOPS', ylabel: 'mean response time (ms)',
      series: dirth.curves.map(function (c) {
        return {name: 'TC ' + c.threads, points: c.points.map(function (p) {
          return [p[0], p[1], 'TC' + c.threads + ' QD' + p[2]];
        })};
      }),
      markers: dirth.points.map(function (p) {
        return {x: p.iops, y: p.art_ms, name: p.name};
      })
    }, Object.assign({kind: 'pts_dirth'}, meta));
    dirth.points.forEach(function (p, i) {
      var title = (p.name === 'max_iops' ? 'max IOPS point' : 'minimum response time point') +
        ': TC' + p.threads + ' QD' + p.queue_depth + ' (OIO ' + p.oio + '), ' + num(p.iops) +
        ' IOPS, mean ' + num(p.art_ms) + ' ms';
      container.appendChild(el('p', {}, 'Response-time histogram at the ' + title));
      barChart(container, {
        xlabel: 'response time (us, bin from)', ylabel: 'ops',
        bars: p.bins.map(function (b) { return {label: num(b[0]), value: b[2]}; })
      }, Object.assign({kind: 'pts_histogram', chart: i}, meta));
    });
  }

  // A pts step's plots, below its parameters.
  R.ptsSection = function (container, pts, meta) {
    var box = container.appendChild(el('section', {class: 'pts'}));
    box.appendChild(el('h4', {}, 'SNIA PTS 2.0 ' + pts.test + ' test'));
    steadyChart(box, pts.steady, Object.assign({kind: 'pts_rounds'}, meta),
                'Steady state, tracking ' + pts.tracked);
    if (pts.matrix) matrixPlots(box, pts, meta);
    if (pts.wsat) wsatPlots(box, pts.wsat, meta);
    if (pts.dirth) dirthPlots(box, pts.dirth, meta);
  };

  // A phase's steady_state= outcome: the judged window as the same rounds chart.
  R.steadyStateSection = function (container, steady, meta) {
    steadyChart(container, steady, Object.assign({kind: 'steady_state'}, meta),
                'Steady state (' + steady.criterion + '): ' +
                (steady.steady ? 'steady' : 'not steady') +
                ', every sample kept, with the judged window');
  };
})(IobenchReport);
