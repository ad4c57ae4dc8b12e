// Building the page's elements. Every piece of text goes in as a text node
// (textContent), never as markup: agent names, model answers and event text
// come from outside and are shown as they are.

const SVG_NS = 'http://www.w3.org/2000/svg';

function apply(node, props) {
  for (const [key, value] of Object.entries(props || {})) {
    if (value === undefined || value === null || value === false) continue;
    if (key === 'text') node.textContent = String(value);
    else if (key === 'class') node.setAttribute('class', value);
    else if (key === 'dataset') Object.assign(node.dataset, value);
    else if (key.startsWith('on') && typeof value === 'function') node.addEventListener(key.slice(2), value);
    else node.setAttribute(key, String(value));
  }
  return node;
}

function appendAll(node, kids) {
  for (const kid of kids.flat()) {
    if (kid === undefined || kid === null || kid === false) continue;
    node.append(kid instanceof Node ? kid : String(kid));
  }
  return node;
}

export function el(tag, props, ...kids) {
  return appendAll(apply(document.createElement(tag), props), kids);
}

export function svg(tag, props, ...kids) {
  return appendAll(apply(document.createElementNS(SVG_NS, tag), props), kids);
}

export function replaceKids(node, ...kids) {
  node.replaceChildren();
  return appendAll(node, kids);
}

export function usd(v) {
  const n = Number(v) || 0;
  if (n === 0) return '$0';
  if (Math.abs(n) < 0.01) return '$' + n.toFixed(4);
  return '$' + n.toFixed(2);
}

export function count(v) {
  const n = Number(v) || 0;
  if (n >= 1e6) return (n / 1e6).toFixed(1) + 'M';
  if (n >= 1e4) return (n / 1e3).toFixed(0) + 'k';
  if (n >= 1e3) return (n / 1e3).toFixed(1) + 'k';
  return String(n);
}

export function duration(ms) {
  if (ms === null || ms === undefined || ms < 0) return '';
  if (ms < 1000) return ms + ' ms';
  if (ms < 60000) return (ms / 1000).toFixed(1) + ' s';
  return Math.round(ms / 60000) + ' min';
}

export function clock(atMs) {
  if (!atMs) return '';
  return new Date(atMs).toLocaleTimeString([], { hour: '2-digit', minute: '2-digit', second: '2-digit' });
}
