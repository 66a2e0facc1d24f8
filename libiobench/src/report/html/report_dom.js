// The HTML report's DOM and chart helpers, shared by its page scripts (report_compare.js and
// report.js) as the global IobenchReport: elements built from DOM text nodes only (no
// innerHTML: result strings stay text), numbers for people, and dygraphs charts, each with a
// self-check entry (the model's rows and the rows drawn) that report.js writes at the end.
var IobenchReport = (function () {
  'use strict';
  var errors = [];
  var checks = [];

  function recordError(message) {
    errors.push(String(message));
    var box = document.getElementById('iobench-errors');
    if (box) {
      box.textContent = errors.join('\n');
      box.hidden = false;
    }
  }
  window.addEventListener('error', function (event) {
    recordError(event.message || 'script error');
  });

  var SVG_NS = 'http://www.w3.org/2000/svg';

  function append(node, children) {
    (Array.isArray(children) ? children : [children]).forEach(function (child) {
      if (child === null || child === undefined) return;
      node.appendChild(typeof child === 'string' || typeof child === 'number'
        ? document.createTextNode(String(child)) : child);
    });
    return node;
  }

  function el(tag, attrs, children) {
    var node = document.createElement(tag);
    Object.keys(attrs || {}).forEach(function (key) {
      if (attrs[key] !== null && attrs[key] !== undefined) node.setAttribute(key, String(attrs[key]));
    });
    return append(node, children === undefined ? [] : children);
  }

  function svg(tag, attrs, children) {
    var node = document.createElementNS(SVG_NS, tag);
    Object.keys(attrs || {}).forEach(function (key) {
      node.setAttribute(key, String(attrs[key]));
    });
    return append(node, children === undefined ? [] : children);
  }

  // A number for people: 3 significant digits, thousands kept whole.
  function num(value) {
    if (value === null || value === undefined || !isFinite(value)) return '-';
    var abs = Math.abs(value);
    if (abs >= 1000) return Math.round(value).toLocaleString('en-US');
    if (abs >= 100) return value.toFixed(1);
    if (abs >= 1) return value.toFixed(2);
    if (abs === 0) return '0';
    return value.toPrecision(3);
  }

  function table(headers, rows, className) {
    var head = headers ? el('tr', {}, headers.map(function (h) { return el('th', {}, h); })) : null;
    var body = rows.map(function (row) {
      return el('tr', {}, row.map(function (cell) { return el('td', {}, cell); }));
    });
    return el('table', {class: className || 'facts'}, [el('thead', {}, head), el('tbody', {}, body)]);
  }

  function note(text) { return el('p', {class: 'note'}, text); }

  // One dygraphs chart; its self-check entry records the model's rows and the rows drawn.
  function escapeHtml(text) {
    return String(text).replace(/[&<>"']/g, function (c) {
      return {'&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;'}[c];
    });
  }

  function chart(container, data, options, meta) {
    var box = container.appendChild(el('div', {class: 'chart'}));
    var legend = container.appendChild(el('div', {class: 'legend'}));
    var check = {meta: meta, expected: data.rows.length, drawn: -1};
    checks.push(check);
    var opts = {labels: data.labels, legend: 'always', labelsDiv: legend,
                labelsSeparateLines: false, labelsKMB: true, animatedZooms: false};
    Object.keys(options).forEach(function (key) { opts[key] = options[key]; });
    // dygraphs writes axis titles, tick labels and legend x values as HTML, and they may hold
    // text from a result file (a sweep's param and values): escape them all.
    ['xlabel', 'ylabel', 'y2label', 'title'].forEach(function (key) {
      if (opts[key] !== undefined) opts[key] = escapeHtml(opts[key]);
    });
    Object.keys(opts.axes || {}).forEach(function (axis) {
      ['axisLabelFormatter', 'valueFormatter'].forEach(function (key) {
        var format = opts.axes[axis][key];
        if (format) {
          opts.axes[axis][key] = function () { return escapeHtml(format.apply(this, arguments)); };
        }
      });
    });
    try {
      var g = new Dygraph(box, data.rows, opts);
      check.drawn = g.numRows();
      return g;
    } catch (e) {
      recordError('chart ' + JSON.stringify(meta) + ': ' + e);
      return null;
    }
  }

  function seconds(x) { return num(x) + ' s'; }

  return {errors: errors, checks: checks, recordError: recordError, el: el, svg: svg,
          num: num, table: table, note: note, escapeHtml: escapeHtml, chart: chart,
          seconds: seconds};
})();
