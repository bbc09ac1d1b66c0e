// The graph page of irrun (irrun/render/graph_page.py): inlined into every page, no network.
// It reads the laid-out graph from the JSON in #graph-data, draws it as SVG, and handles pan,
// zoom, search, selection and the side panel. Positions come from Python; nothing is laid
// out here.
(function () {
  "use strict";
  const timings = { start: performance.now() };
  const all = JSON.parse(document.getElementById("graph-data").textContent);
  timings.parsed = performance.now();
  // One view at a time: the model (#, #L3) or the body numbered n in all.views (#bn, #bn:L3).
  const address = decodeURIComponent(location.hash).match(/^#b(\d+)(?::(.*))?$/);
  const viewNumber = address && Number(address[1]) >= 1 && Number(address[1]) <= all.views.length
    ? Number(address[1]) : 0;
  const data = viewNumber ? all.views[viewNumber - 1] : all;
  const keyPrefix = viewNumber ? "#b" + viewNumber + ":" : "#";
  // Another view is another page: links to bodies and the trail back change the address.
  window.addEventListener("hashchange", () => location.reload());
  const SVG = "http://www.w3.org/2000/svg";
  const nodes = data.nodes;
  const edges = data.edges;

  // -- small helpers ------------------------------------------------------------------------
  function element(tag, attributes, parent, text) {
    const made = document.createElement(tag);
    for (const [name, value] of Object.entries(attributes || {})) made.setAttribute(name, value);
    if (text !== undefined && text !== null) made.textContent = text;
    if (parent) parent.appendChild(made);
    return made;
  }
  function svgElement(tag, attributes, parent, text) {
    const made = document.createElementNS(SVG, tag);
    for (const [name, value] of Object.entries(attributes || {})) made.setAttribute(name, value);
    if (text !== undefined && text !== null) made.textContent = text;
    if (parent) parent.appendChild(made);
    return made;
  }
  function plural(count, word) {
    return count + " " + word + (count === 1 ? "" : "s");
  }

  // -- the page's frame ---------------------------------------------------------------------
  const bar = element("header", { id: "bar" }, document.body);
  const model = element("div", { id: "model" }, bar);
  if (viewNumber) {
    // The trail from the model down to this body: each step a link to its view.
    const trail = element("span", { id: "trail" }, model);
    const steps = [];
    for (let n = data.parent; n; n = all.views[n - 1].parent) steps.unshift(n);
    element("a", { href: "#" }, trail, all.name);
    for (const n of steps) {
      element("span", { class: "sep" }, trail, " › ");
      element("a", { href: "#b" + n }, trail, all.views[n - 1].label);
    }
    element("span", { class: "sep" }, trail, " › ");
  }
  element("b", {}, model, viewNumber ? data.label : data.name);
  element("span", { class: "kind" }, model,
    data.kind + " · " + plural(data.layer_count, "layer"));
  const errorCount = nodes.filter((n) => n.severity === "error").length;
  const warningCount = nodes.filter((n) => n.severity === "warning").length;
  if (data.summary !== null) {
    const state = errorCount ? "error" : warningCount ? "warning" : "ok";
    element("span", { id: "summary", class: state }, model, data.summary);
  }
  const find = element("div", { id: "find" }, bar);
  const search = element("input", {
    id: "search", type: "search", autocomplete: "off", spellcheck: "false",
    placeholder: "Find a layer by name, type or tensor  ( / )",
  }, find);
  const results = element("div", { id: "results" }, find);
  const tools = element("div", { id: "tools" }, bar);
  const previousProblem = element("button", { id: "previous-problem", title: "previous layer with a problem" }, tools, "◀");
  const nextProblem = element("button", { id: "next-problem", title: "next layer with a problem" }, tools, "problem ▶");
  const zoomOut = element("button", { id: "zoom-out", title: "zoom out (-)" }, tools, "−");
  const zoomIn = element("button", { id: "zoom-in", title: "zoom in (+)" }, tools, "+");
  const fit = element("button", { id: "fit", title: "show everything (0)" }, tools, "fit");
  const main = element("main", {}, document.body);
  const panel = element("aside", { id: "panel" }, document.body);
  const svg = svgElement("svg", { id: "graph" }, main);
  const defs = svgElement("defs", {}, svg);
  for (const [id, color] of [["arrow", "#90a4ae"], ["arrow-hot", "#1565c0"]]) {
    const marker = svgElement("marker", {
      id: id, viewBox: "0 0 10 10", refX: "9", refY: "5", markerWidth: "9", markerHeight: "9",
      markerUnits: "userSpaceOnUse", orient: "auto-start-reverse",
    }, defs);
    svgElement("path", { d: "M 0 0 L 10 5 L 0 10 z", fill: color }, marker);
  }
  const viewport = svgElement("g", { id: "viewport" }, svg);
  const edgeLayer = svgElement("g", { id: "edges" }, viewport);
  const nodeLayer = svgElement("g", { id: "nodes" }, viewport);

  // -- drawing ------------------------------------------------------------------------------
  // An edge runs through its points with vertical tangents, as layered drawings do.
  function pathOf(points) {
    let d = "M" + points[0] + " " + points[1];
    for (let i = 2; i < points.length; i += 2) {
      const x0 = points[i - 2], y0 = points[i - 1], x1 = points[i], y1 = points[i + 1];
      const middle = (y0 + y1) / 2;
      d += "C" + x0 + " " + middle + " " + x1 + " " + middle + " " + x1 + " " + y1;
    }
    return d;
  }
  // Only what is in view is in the document: a big model's tens of thousands of SVG elements
  // would make every pan and zoom re-render all of them. Elements are made when first seen
  // and kept for later; the state they show (selected, matching) lives in these arrays.
  const incident = nodes.map(() => []);
  edges.forEach((edge, index) => {
    incident[edge.tail].push(index);
    incident[edge.head].push(index);
    let left = Infinity, right = -Infinity, top = Infinity, bottom = -Infinity;
    for (let i = 0; i < edge.points.length; i += 2) {
      left = Math.min(left, edge.points[i]);
      right = Math.max(right, edge.points[i]);
      top = Math.min(top, edge.points[i + 1]);
      bottom = Math.max(bottom, edge.points[i + 1]);
    }
    edge.box = [left, top, right + 60, bottom + 14];  // room for its label
  });
  const boxes = new Array(nodes.length).fill(null);
  const edgePaths = new Array(edges.length).fill(null);
  const matching = new Array(nodes.length).fill(false);
  let selected = null;

  function nodeElement(index) {
    if (boxes[index]) return boxes[index];
    const node = nodes[index];
    const classes = ["node", node.role, node.severity];
    if (node.cut) classes.push("cut");
    if (node.center) classes.push("center");
    if (matching[index]) classes.push("match");
    if (selected === index) classes.push("selected");
    const group = svgElement("g", {
      class: classes.filter(Boolean).join(" "),
      transform: "translate(" + (node.x - node.w / 2) + "," + (node.y - node.h / 2) + ")",
      "data-index": index, "data-key": node.key,
    });
    // The whole name on hover: a box shows at most 48 characters of it.
    const layer = node.layer;
    svgElement("title", {}, group, layer ? (layer.name || "layer " + layer.id) + " (" + layer.op + ")" : node.end);
    svgElement("rect", { width: node.w, height: node.h, rx: node.role === "open" ? node.h / 2 : 5 }, group);
    svgElement("text", { class: "title", x: node.w / 2, y: 16 }, group, node.title);
    node.lines.forEach((line, row) => {
      svgElement("text", { x: node.w / 2, y: 31 + 14 * row }, group, line);
    });
    boxes[index] = group;
    return group;
  }
  function edgeElement(index) {
    if (edgePaths[index]) return edgePaths[index];
    const edge = edges[index];
    const hot = selected !== null && (edge.tail === selected || edge.head === selected);
    const group = svgElement("g", { class: "edge-group" });
    const path = svgElement("path", {
      class: "edge" + (hot ? " hot" : ""), d: pathOf(edge.points),
      "marker-end": hot ? "url(#arrow-hot)" : "url(#arrow)",
    }, group);
    if (edge.label) {
      svgElement("title", {}, path, edge.label);
      svgElement("text", { class: "edge-label", x: edge.points[0] + 4, y: edge.points[1] + 12 }, group, edge.label);
    }
    edgePaths[index] = path;
    return path;
  }
  // Widths are estimated in Python; squeeze the rare text that came out wider than its box.
  function squeeze(indices) {
    for (const index of indices) {
      const room = nodes[index].w - 8;
      for (const text of boxes[index].querySelectorAll("text")) {
        if (text.getComputedTextLength() > room) {
          text.setAttribute("textLength", room);
          text.setAttribute("lengthAdjust", "spacingAndGlyphs");
        }
      }
    }
  }
  const shownNodes = new Set(), shownEdges = new Set();
  function showVisible() {
    const { width, height } = size();
    const margin = 200 / view.scale;
    const left = -view.x / view.scale - margin, top = -view.y / view.scale - margin;
    const right = left + width / view.scale + 2 * margin, bottom = top + height / view.scale + 2 * margin;
    const made = [];
    nodes.forEach((node, index) => {
      const visible = node.x + node.w / 2 >= left && node.x - node.w / 2 <= right &&
        node.y + node.h / 2 >= top && node.y - node.h / 2 <= bottom;
      if (visible && !shownNodes.has(index)) {
        if (!boxes[index]) made.push(index);
        nodeLayer.appendChild(nodeElement(index));
        shownNodes.add(index);
      } else if (!visible && shownNodes.has(index)) {
        boxes[index].remove();
        shownNodes.delete(index);
      }
    });
    edges.forEach((edge, index) => {
      const [l, t, r, b] = edge.box;
      const visible = r >= left && l <= right && b >= top && t <= bottom;
      if (visible && !shownEdges.has(index)) {
        edgeLayer.appendChild(edgeElement(index).parentNode);
        shownEdges.add(index);
      } else if (!visible && shownEdges.has(index)) {
        edgePaths[index].parentNode.remove();
        shownEdges.delete(index);
      }
    });
    if (selected !== null && shownNodes.has(selected)) nodeLayer.appendChild(boxes[selected]);
    if (made.length && view.scale >= 0.35) squeeze(made);
    else for (const index of made) boxes[index].squeezeLater = true;
    if (view.scale >= 0.35) {
      const later = [...shownNodes].filter((index) => boxes[index].squeezeLater);
      for (const index of later) delete boxes[index].squeezeLater;
      squeeze(later);
    }
  }
  timings.drawn = performance.now();
  // -- pan and zoom ---------------------------------------------------------------------------
  const view = { x: 0, y: 0, scale: 1 };
  const MIN_SCALE = 0.001, MAX_SCALE = 4;
  let pending = false;
  function applyView() {
    if (pending) return;
    pending = true;
    requestAnimationFrame(applyNow);
  }
  function applyNow() {
    pending = false;
    viewport.setAttribute("transform", "translate(" + view.x + "," + view.y + ") scale(" + view.scale + ")");
    svg.classList.toggle("far", view.scale < 0.35);
    svg.classList.toggle("near", view.scale >= 0.9);
    showVisible();
    drawOverview();
  }
  function zoomAt(factor, cx, cy) {
    const scale = Math.min(MAX_SCALE, Math.max(MIN_SCALE, view.scale * factor));
    view.x = cx - (cx - view.x) * (scale / view.scale);
    view.y = cy - (cy - view.y) * (scale / view.scale);
    view.scale = scale;
    applyView();
  }
  function size() {
    return { width: svg.clientWidth || 800, height: svg.clientHeight || 600 };
  }
  function fitAll() {
    const { width, height } = size();
    view.scale = Math.min(MAX_SCALE, 1, width / data.width, height / data.height);
    view.x = (width - data.width * view.scale) / 2;
    view.y = Math.max(0, (height - data.height * view.scale) / 2);
    applyView();
  }
  function centerOn(node, scale) {
    const { width, height } = size();
    view.scale = scale || Math.max(view.scale, 0.9);
    view.x = width / 2 - node.x * view.scale;
    view.y = height / 2 - node.y * view.scale;
    applyView();
  }
  // A big model is too tall to read whole: start at its top, at a readable size.
  function initialView() {
    const { width, height } = size();
    if (Math.min(width / data.width, height / data.height) >= 0.45 || nodes.length === 0) {
      fitAll();
      return;
    }
    // Reading starts at the model's first input (the first row may be all weights).
    const start = nodes.find((node) => node.role === "Parameter" || node.role === "open") || nodes[0];
    view.scale = 0.9;
    view.x = width / 2 - start.x * view.scale;
    view.y = Math.min(10, height / 3 - start.y * view.scale);
    applyView();
  }

  let drag = null;
  svg.addEventListener("pointerdown", (event) => {
    drag = { x: event.clientX, y: event.clientY, viewX: view.x, viewY: view.y, moved: false };
    svg.setPointerCapture(event.pointerId);
  });
  svg.addEventListener("pointermove", (event) => {
    if (!drag) return;
    const dx = event.clientX - drag.x, dy = event.clientY - drag.y;
    if (!drag.moved && Math.abs(dx) + Math.abs(dy) < 4) return;
    drag.moved = true;
    svg.classList.add("panning");
    view.x = drag.viewX + dx;
    view.y = drag.viewY + dy;
    applyView();
  });
  svg.addEventListener("pointerup", (event) => {
    const wasDrag = drag && drag.moved;
    drag = null;
    svg.classList.remove("panning");
    if (wasDrag) return;
    const hit = document.elementFromPoint(event.clientX, event.clientY);
    const group = hit && hit.closest(".node");
    select(group ? Number(group.getAttribute("data-index")) : null);
  });
  svg.addEventListener("wheel", (event) => {
    event.preventDefault();
    const box = svg.getBoundingClientRect();
    zoomAt(Math.exp(-event.deltaY * 0.0015), event.clientX - box.left, event.clientY - box.top);
  }, { passive: false });
  function zoomCentre(factor) {
    const { width, height } = size();
    zoomAt(factor, width / 2, height / 2);
  }
  zoomIn.addEventListener("click", () => zoomCentre(1.25));
  zoomOut.addEventListener("click", () => zoomCentre(0.8));
  fit.addEventListener("click", fitAll);

  // -- the overview: every box as a dot, problems in colour, the view as a frame --------------
  const overview = element("canvas", { id: "overview" }, main);
  // One scale down, a wider one across (at most 20 times): a tall model's map stays usable.
  const overviewScaleY = Math.min(150 / data.width, 320 / data.height);
  const overviewScale = Math.min(150 / data.width, 20 * overviewScaleY);
  overview.width = Math.max(40, Math.ceil(data.width * overviewScale));
  overview.height = Math.max(40, Math.ceil(data.height * overviewScaleY));
  const overviewImage = document.createElement("canvas");
  overviewImage.width = overview.width;
  overviewImage.height = overview.height;
  (function paintOverview() {
    const context = overviewImage.getContext("2d");
    const colors = { error: "#c62828", warning: "#ef6c00", "": "#90a4ae" };
    for (const severity of ["", "warning", "error"]) {  // problems on top
      context.fillStyle = colors[severity];
      for (const node of nodes) {
        if (node.severity !== severity) continue;
        const w = Math.max(node.w * overviewScale, severity ? 3 : 1);
        const h = Math.max(node.h * overviewScaleY, severity ? 3 : 1);
        context.fillRect(node.x * overviewScale - w / 2, node.y * overviewScaleY - h / 2, w, h);
      }
    }
  })();
  function drawOverview() {
    const { width, height } = size();
    // Only a graph bigger than the window needs a map.
    overview.style.display = data.width * view.scale > width || data.height * view.scale > height ? "" : "none";
    const context = overview.getContext("2d");
    context.clearRect(0, 0, overview.width, overview.height);
    context.drawImage(overviewImage, 0, 0);
    context.strokeStyle = "#1565c0";
    context.lineWidth = 1.5;
    context.strokeRect(-view.x / view.scale * overviewScale, -view.y / view.scale * overviewScaleY,
      Math.max(width / view.scale * overviewScale, 3), Math.max(height / view.scale * overviewScaleY, 3));
  }
  function overviewJump(event) {
    const box = overview.getBoundingClientRect();
    const { width, height } = size();
    const x = (event.clientX - box.left) / overviewScale, y = (event.clientY - box.top) / overviewScaleY;
    view.x = width / 2 - x * view.scale;
    view.y = height / 2 - y * view.scale;
    applyView();
  }
  let overviewDrag = false;
  overview.addEventListener("pointerdown", (event) => {
    overviewDrag = true;
    overview.setPointerCapture(event.pointerId);
    overviewJump(event);
    event.stopPropagation();
  });
  overview.addEventListener("pointermove", (event) => { if (overviewDrag) overviewJump(event); });
  overview.addEventListener("pointerup", () => { overviewDrag = false; });

  // -- selection and the side panel -----------------------------------------------------------
  function setHot(index, hot) {
    for (const e of incident[index]) {
      if (!edgePaths[e]) continue;
      edgePaths[e].classList.toggle("hot", hot);
      edgePaths[e].setAttribute("marker-end", hot ? "url(#arrow-hot)" : "url(#arrow)");
      if (hot && shownEdges.has(e)) edgeLayer.appendChild(edgePaths[e].parentNode);
    }
  }
  function select(index, options) {
    if (selected !== null) {
      if (boxes[selected]) boxes[selected].classList.remove("selected");
      setHot(selected, false);
    }
    selected = index;
    if (index !== null) {
      if (boxes[index]) boxes[index].classList.add("selected");
      setHot(index, true);
      if (options && options.center) centerOn(nodes[index]);
      else applyView();
    }
    // The address names the selected layer: a link to the page with #L12 opens at it.
    const here = viewNumber ? "#b" + viewNumber : location.pathname + location.search;
    history.replaceState(null, "", index === null ? here : keyPrefix + nodes[index].key);
    showPanel();
  }

  function diagnosticBlock(diagnostic, parent) {
    const block = element("div", { class: "diagnostic " + diagnostic.severity }, parent);
    element("span", { class: "code" }, block, diagnostic.severity + "[" + diagnostic.code + "]");
    const where = [];
    if (diagnostic.line) where.push("line " + diagnostic.line);
    if (diagnostic.port) where.push(diagnostic.port);
    block.appendChild(document.createTextNode(
      (where.length ? " " + where.join(", ") : "") + ": " + diagnostic.message));
    if (diagnostic.hint) element("div", { class: "hint" }, block, "hint: " + diagnostic.hint);
    for (const note of diagnostic.notes) element("div", { class: "note" }, block, "note: " + note);
  }
  function link(end, parent) {
    if (end.node === null) {
      element("span", {}, parent, end.text);
      return;
    }
    const a = element("span", { class: "link", "data-index": end.node }, parent, end.text);
    a.addEventListener("click", () => select(end.node, { center: true }));
  }
  function typed(type, shape) {
    return type && type !== "dynamic" ? type + " " + shape : shape;
  }
  function portTable(title, ports, direction) {
    element("h3", {}, panel, title);
    if (!ports.length) {
      element("div", { class: "none" }, panel, "none");
      return;
    }
    const table = element("table", {}, panel);
    const head = element("tr", {}, element("thead", {}, table));
    for (const name of ["port", "declared", "inferred", direction === "input" ? "from" : "to"]) {
      element("th", {}, head, name);
    }
    const body = element("tbody", {}, table);
    for (const port of ports) {
      const row = element("tr", {}, body);
      element("td", { class: "mono" }, row, String(port.port));
      const declared = typed(port.declared_type, port.declared_shape);
      element("td", { class: "mono" }, row, declared);
      let inferred = "—";
      if (port.inferred_shape !== null) {
        inferred = typed(port.inferred_type || port.declared_type, port.inferred_shape);
      }
      const inferredType = port.inferred_type || port.declared_type;
      const differs = port.inferred_shape !== null && (port.inferred_shape !== port.declared_shape ||
        (port.declared_type !== null && inferredType !== port.declared_type));
      element("td", { class: "mono" + (differs ? " differs" : "") }, row, inferred);
      const ends = element("td", {}, row);
      const linked = direction === "input" ? (port.from ? [port.from] : []) : port.to;
      if (!linked.length) element("span", { class: "none" }, ends, direction === "input" ? "not connected" : "no consumer");
      linked.forEach((end, k) => {
        if (k) ends.appendChild(document.createElement("br"));
        link(end, ends);
      });
      if (port.names && port.names.length) {
        element("div", { class: "mono none" }, ends, "names: " + port.names.join(", "));
      }
    }
  }
  function showPanel() {
    panel.textContent = "";
    panel.scrollTop = 0;
    if (selected === null) {
      overviewPanel();
      return;
    }
    const node = nodes[selected];
    const layer = node.layer;
    element("h2", {}, panel, layer ? layer.name || "layer " + layer.id : node.title);
    if (!layer) {
      element("div", { class: "sub" }, panel, node.end);
      element("div", { class: "sub mono" }, panel, node.lines.join(" "));
      return;
    }
    const version = layer.version && !layer.op.includes(layer.version) ? " (" + layer.version + ")" : "";
    element("div", { class: "sub" }, panel, layer.op + version + " · layer " + layer.id + " · line " + layer.line);
    if (layer.diagnostics.length) {
      element("h3", {}, panel, "Diagnostics");
      for (const diagnostic of layer.diagnostics) diagnosticBlock(diagnostic, panel);
    }
    element("h3", {}, panel, "Attributes");
    if (layer.attributes.length) {
      const table = element("table", { class: "attributes" }, panel);
      const body = element("tbody", {}, table);
      for (const [name, value] of layer.attributes) {
        const row = element("tr", {}, body);
        element("td", {}, row, name);
        element("td", { class: "mono" }, row, value);
      }
    } else {
      element("div", { class: "none" }, panel, "none");
    }
    portTable("Inputs", layer.inputs, "input");
    portTable("Outputs", layer.outputs, "output");
    if (layer.bodies.length) {
      element("h3", {}, panel, "Sub-graphs");
      for (const [tag, count, number] of layer.bodies) {
        const item = element("div", { class: "body-link" }, panel);
        element("a", { href: "#b" + number }, item, tag);
        element("span", { class: "none" }, item, " · " + plural(count, "layer"));
      }
    }
  }
  const problems = nodes.map((node, index) => index).filter((index) => nodes[index].severity && !nodes[index].copy);
  function overviewPanel() {
    element("h2", {}, panel, data.name);
    element("div", { class: "sub" }, panel, data.kind + " · " + plural(data.layer_count, "layer") + " · " + data.file);
    if (data.title !== data.name) element("div", { class: "sub" }, panel, data.title);
    if (!data.validated) {
      element("div", { class: "note-line" }, panel, "Not validated: boxes show the declared shapes.");
    } else if (data.coverage) {
      element("div", { class: "sub note-line" }, panel, "coverage: " + data.coverage);
    }
    if (data.unplaced.length) {
      element("h3", {}, panel, "Diagnostics not on a layer");
      for (const diagnostic of data.unplaced) diagnosticBlock(diagnostic, panel);
    }
    if (problems.length) {
      element("h3", {}, panel, "Layers with problems (" + problems.length + ")");
      for (const index of problems.slice(0, 500)) {
        const node = nodes[index];
        const item = element("div", { class: "problem " + node.severity }, panel, node.title + " ");
        const codes = [...new Set(node.layer.diagnostics.map((d) => d.code))];
        element("span", { class: "codes" }, item, codes.join(", "));
        item.addEventListener("click", () => select(index, { center: true }));
      }
      if (problems.length > 500) element("div", { class: "none" }, panel, "and " + (problems.length - 500) + " more");
    }
    element("div", { class: "help" }, panel,
      "Click a layer for its attributes, ports and diagnostics. Drag to pan, wheel or + and − to zoom, 0 to fit, / to search.");
  }

  // -- problems one after another -------------------------------------------------------------
  function stepProblem(direction) {
    if (!problems.length) return;
    const at = selected === null ? -1 : problems.indexOf(selected);
    let next;
    if (at < 0) next = direction > 0 ? problems.find((i) => selected === null || i > selected) : undefined;
    else next = problems[(at + direction + problems.length) % problems.length];
    if (next === undefined) next = problems[direction > 0 ? 0 : problems.length - 1];
    select(next, { center: true });
  }
  nextProblem.addEventListener("click", () => stepProblem(1));
  previousProblem.addEventListener("click", () => stepProblem(-1));
  nextProblem.disabled = previousProblem.disabled = problems.length === 0;

  // -- search -----------------------------------------------------------------------------------
  // Per box: the words naming it (title, key, layer name and id, tensor names, as messages give
  // them) and the words of its op (type, Type-N), lower case, and all of them as one text.
  const searchable = nodes.map((node) => {
    if (node.copy) return null;  // a shared constant's copy: its first box is found
    const layer = node.layer;
    const names = [node.title, node.key];
    const ops = [];
    if (layer) {
      names.push(layer.name, String(layer.id));
      for (const port of layer.outputs) names.push(...port.names);
      ops.push(layer.type, layer.op);
    }
    const lower = (words) => words.filter((word) => word).map((word) => String(word).toLowerCase());
    const named = lower(names), typed = lower(ops);
    return { named, typed, text: named.concat(typed).join("\n") };
  });
  // Best first: a name or id equal to the query, then an op type equal to it, then a name that
  // starts with it, then any word that holds it; ties in graph order.
  function rankOf(entry, query) {
    if (entry.named.includes(query)) return 0;
    if (entry.typed.includes(query)) return 1;
    if (entry.named.some((word) => word.startsWith(query))) return 2;
    return 3;
  }
  let matches = [], active = 0;
  const RESULT_LIMIT = 200;
  function runSearch() {
    for (const index of matches) {
      matching[index] = false;
      if (boxes[index]) boxes[index].classList.remove("match");
    }
    results.textContent = "";
    const query = search.value.trim().toLowerCase();
    matches = [];
    active = 0;
    if (!query) return;
    const ranked = [];
    searchable.forEach((entry, index) => {
      if (entry && entry.text.includes(query)) ranked.push([rankOf(entry, query), index]);
    });
    ranked.sort((a, b) => a[0] - b[0] || a[1] - b[1]);
    matches = ranked.map((pair) => pair[1]);
    for (const index of matches) {
      matching[index] = true;
      if (boxes[index]) boxes[index].classList.add("match");
    }
    element("div", { class: "count" }, results,
      matches.length ? plural(matches.length, "layer") + " match" + (matches.length === 1 ? "es" : "")
        : "no layer matches");
    matches.slice(0, RESULT_LIMIT).forEach((index, position) => {
      const node = nodes[index];
      const item = element("div", { class: "result " + node.severity + (position === 0 ? " active" : ""), "data-index": index }, results, node.title + " ");
      element("span", { class: "op" }, item, node.layer ? node.layer.op : node.end);
      item.addEventListener("mousedown", (event) => {
        event.preventDefault();
        choose(index);
      });
    });
  }
  function choose(index) {
    results.textContent = "";
    select(index, { center: true });
  }
  function markActive() {
    results.querySelectorAll(".result").forEach((item, position) => {
      item.classList.toggle("active", position === active);
      if (position === active) item.scrollIntoView({ block: "nearest" });
    });
  }
  search.addEventListener("input", runSearch);
  search.addEventListener("focus", () => { if (search.value) runSearch(); });
  search.addEventListener("blur", () => { results.textContent = ""; });
  search.addEventListener("keydown", (event) => {
    const shown = Math.min(matches.length, RESULT_LIMIT);
    if (event.key === "ArrowDown" && shown) { active = (active + 1) % shown; markActive(); event.preventDefault(); }
    else if (event.key === "ArrowUp" && shown) { active = (active - 1 + shown) % shown; markActive(); event.preventDefault(); }
    else if (event.key === "Enter" && shown) { choose(matches[active]); }
    else if (event.key === "Escape") { search.value = ""; runSearch(); search.blur(); }
  });
  document.addEventListener("keydown", (event) => {
    if (event.target === search) return;
    if (event.key === "/") { search.focus(); search.select(); event.preventDefault(); }
    else if (event.key === "+" || event.key === "=") zoomCentre(1.25);
    else if (event.key === "-") zoomCentre(0.8);
    else if (event.key === "0") fitAll();
    else if (event.key === "Escape") select(null);
  });
  window.addEventListener("resize", applyView);

  // -- start --------------------------------------------------------------------------------------
  showPanel();
  initialView();
  const linked = nodes.findIndex((node) => keyPrefix + node.key === decodeURIComponent(location.hash));
  if (linked >= 0) select(linked, { center: true });
  timings.started = performance.now();
  requestAnimationFrame(() => {
    timings.frame = performance.now();
    document.body.setAttribute("data-ready", "true");
  });
  // For tests and for the curious: what the page knows, and a way to pick a layer.
  // timings: milliseconds since navigation at which the data was parsed, the page built and
  // the first frame drawn.
  window.irrunGraph = {
    data: data, all: all, viewNumber: viewNumber, view: view, timings: timings, select: select,
    shown: () => shownNodes.size,
    search: (text) => { search.value = text; runSearch(); return matches.slice(); },
  };
})();
