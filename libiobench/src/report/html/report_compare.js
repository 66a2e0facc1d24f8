// The HTML report's comparison of runs (against #1, the baseline): bars per metric coloured
// by the change's direction and significance, explanations side by side, and the bars'
// layout for the page's self-check. Adds comparisonSection and compareBarsLayout to
// IobenchReport (report_dom.js).
(function (R) {
  'use strict';
  var el = R.el;
  var svg = R.svg;
  var num = R.num;
  var table = R.table;
  var note = R.note;

  // How a run's bar is coloured against the baseline: by the metric's direction where the
  // change is significant (Welch's t-test), grey where it is within noise or unchanged, a paler
  // shade of the direction where a side has one run (n=1: no noise estimate).
  function changeClass(change) {
    if (!change) return 'base';
    if (change.noise === 'within noise' || change.direction === 'unchanged') return 'same';
    var kind = change.direction === 'better' ? 'better' : 'worse';
    return change.noise === 'significant' ? kind : kind + ' unsure';
  }

  var CHANGE_LEGEND = [
    ['base', 'baseline (#1)'], ['better', 'better, significant'], ['worse', 'worse, significant'],
    ['same', 'no significant difference (within noise) or unchanged'],
    ['better unsure', 'better, n=1: no noise estimate'],
    ['worse unsure', 'worse, n=1: no noise estimate']];

  function changeLegend() {
    return el('p', {class: 'change-legend'}, CHANGE_LEGEND.map(function (entry) {
      return el('span', {}, [el('span', {class: 'swatch ' + entry[0]}), entry[1]]);
    }));
  }

  // A label cut to `max` characters, keeping its end (a file name's tail tells runs apart).
  function clip(text, max) {
    return text.length <= max ? text : '\u2026' + text.slice(text.length - max + 1);
  }

  // One bar per run: its label on a line of its own above the bar (never under it), the value
  // and the change right of the bar in room kept for them; 95 % CI whiskers where n >= 2.
  function comparisonBars(metric, labels) {
    var width = 560;
    var valueRoom = 250;  // "12,345 MiB/s (n=10) +123.4 % better" at 12px
    var rowHeight = 40;
    var height = rowHeight * labels.length + 6;
    var max = 0;
    metric.inputs.forEach(function (v) {
      if (v && !v.unavailable) max = Math.max(max, v.n >= 2 ? v.ci95_high : v.mean);
    });
    if (max <= 0) max = 1;
    var scale = (width - 8 - valueRoom) / max;
    var picture = svg('svg', {width: width, height: height, class: 'bars compare-bars',
                              viewBox: '0 0 ' + width + ' ' + height});
    metric.inputs.forEach(function (v, i) {
      var y = 4 + i * rowHeight;
      var label = svg('text', {x: 4, y: y + 12, class: 'label'},
                      '#' + (i + 1) + ' ' + clip(labels[i], 80));
      label.appendChild(svg('title', {}, '#' + (i + 1) + ' ' + labels[i]));
      picture.appendChild(label);
      if (!v || v.unavailable) {
        picture.appendChild(svg('text', {x: 4, y: y + 30, class: 'value'},
                                v ? v.unavailable : 'not in this run'));
        return;
      }
      var change = i > 0 ? metric.changes[i - 1] : null;
      var w = Math.max(1, v.mean * scale);
      var bar = svg('rect', {x: 4, y: y + 17, width: w, height: 18,
                             class: 'bar ' + (i === 0 ? 'base' : change ? changeClass(change) :
                                                                             'same')});
      var text = num(v.mean) + ' ' + metric.unit + (v.n >= 2 ? ' (n=' + v.n + ')' : '');
      var title = text;
      if (change && change.change_percent !== null) {
        text += ' ' + (change.change_percent >= 0 ? '+' : '') +
          change.change_percent.toFixed(1) + ' % ' + change.direction;
        title = text + ', ' + change.noise;
      }
      bar.appendChild(svg('title', {}, title));
      picture.appendChild(bar);
      if (v.n >= 2) {
        picture.appendChild(svg('line', {x1: 4 + v.ci95_low * scale, x2: 4 +
                                         v.ci95_high * scale, y1: y + 26, y2: y + 26,
                                         class: 'whisker'}));
      }
      picture.appendChild(svg('text', {x: 4 + Math.max(w, v.n >= 2 ? v.ci95_high * scale : 0) + 6,
                                       y: y + 30, class: 'value'}, text));
    });
    return picture;
  }

  // A phase's explanations side by side (issue 29): the findings that differ first, then each
  // run's storage, device figures and findings in a column of its own.
  function compareExplain(explain, labels) {
    var box = el('div', {class: 'explain compare-explain'});
    box.appendChild(el('p', {}, 'Explain (what the kernel and the devices did' +
      (explain.inputs.some(function (s) { return s && s.results > 1; }) ?
        ', each run\'s first repetition' : '') + '; findings that differ first):'));
    box.appendChild(el('ul', {class: 'findings'}, explain.findings.map(function (line) {
      return el('li', {}, line);
    })));
    box.appendChild(table([''].concat(labels.map(function (l, i) {
      return '#' + (i + 1) + ' ' + clip(l, 40);
    })), explain.figures, 'facts compare-explain-figures'));
    return box;
  }

  function comparisonSection(comparison) {
    var box = el('section', {class: 'comparison', id: 'comparison'});
    box.appendChild(el('h2', {}, 'Runs side by side (against #1, the baseline)'));
    if (comparison.environment.length) {
      box.appendChild(el('h3', {}, 'What differs'));
      box.appendChild(table(['field'].concat(comparison.labels.map(function (l, i) {
        return '#' + (i + 1) + ' ' + l;
      })), comparison.environment.map(function (d) { return [d.field].concat(d.values); })));
    }
    if (comparison.phases.length) box.appendChild(changeLegend());
    comparison.phases.forEach(function (phase) {
      var section = el('section', {class: 'compare-phase'});
      section.appendChild(el('h4', {}, ['step ' + phase.step + (phase.sweep_point !== null ?
        ', point ' + phase.sweep_point : '') + ', phase ', el('q', {}, phase.phase)]));
      (phase.notes || []).forEach(function (text) { section.appendChild(note('Compared: ' + text)); });
      if (phase.explain) section.appendChild(compareExplain(phase.explain, comparison.labels));
      phase.metrics.forEach(function (metric) {
        section.appendChild(el('div', {class: 'compare-metric'}, [
          el('p', {}, metric.title + ' (' + metric.unit + ', ' + metric.better +
             ' is better)'),
          comparisonBars(metric, comparison.labels)]));
      });
      box.appendChild(section);
    });
    if (comparison.unmatched.length) {
      box.appendChild(el('h3', {}, 'Not in every run'));
      box.appendChild(table(['part', 'missing in'], comparison.unmatched.map(function (u) {
        return [u.what, u.missing_in.join(', ')];
      })));
    }
    if (comparison.left_out.length) {
      box.appendChild(el('h3', {}, 'Left out (did not end ok)'));
      box.appendChild(table(['run', 'part', 'status', 'message'],
        comparison.left_out.map(function (l) {
          return [l.input, l.what, l.status, l.message];
        })));
    }
    return box;
  }

  // The compare bars' texts as laid out: how many run past their picture's edge or into a bar
  // (a label clipped or hidden, as the browser draws it).
  function compareBarsLayout() {
    var bars = document.querySelectorAll('svg.compare-bars');
    var clipped = 0;
    Array.prototype.forEach.call(bars, function (picture) {
      var width = Number(picture.getAttribute('width'));
      var rects = Array.prototype.map.call(picture.querySelectorAll('rect'), function (r) {
        return r.getBBox();
      });
      Array.prototype.forEach.call(picture.querySelectorAll('text'), function (text) {
        var box = text.getBBox();
        var overlaps = rects.some(function (r) {
          return box.x < r.x + r.width && r.x < box.x + box.width &&
            box.y < r.y + r.height && r.y < box.y + box.height;
        });
        if (box.x < 0 || box.x + box.width > width || overlaps) clipped += 1;
      });
    });
    return {pictures: bars.length, clipped: clipped};
  }

  R.comparisonSection = comparisonSection;
  R.compareBarsLayout = compareBarsLayout;
})(IobenchReport);
