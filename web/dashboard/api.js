// Talking to the server: JSON requests and the /events stream, both with the
// bearer token in the Authorization header. A browser's EventSource cannot
// send that header, so the stream is read with fetch() and parsed here.
// The token is typed once and kept in this tab's sessionStorage only.

const TOKEN_KEY = 'kaisha-token';

export const auth = {
  get token() {
    return sessionStorage.getItem(TOKEN_KEY) || '';
  },
  set(token) {
    if (token) sessionStorage.setItem(TOKEN_KEY, token);
    else sessionStorage.removeItem(TOKEN_KEY);
  },
};

export class HttpError extends Error {
  constructor(status, message) {
    super(message);
    this.status = status;
  }
}

function headers(extra) {
  const h = { ...extra };
  if (auth.token) h.Authorization = 'Bearer ' + auth.token;
  return h;
}

export async function api(path, { method = 'GET', body } = {}) {
  const init = { method, cache: 'no-store', credentials: 'omit', headers: headers({ Accept: 'application/json' }) };
  if (body !== undefined) {
    init.headers['Content-Type'] = 'application/json';
    init.body = JSON.stringify(body);
  }
  const res = await fetch(path, init);
  let data = null;
  try {
    data = await res.json();
  } catch {
    data = null;
  }
  if (!res.ok) throw new HttpError(res.status, (data && data.error && data.error.message) || 'HTTP ' + res.status);
  // A body cut short (the server stopping mid-answer) is a failure, not an empty answer.
  if (data === null || typeof data !== 'object') throw new HttpError(res.status, 'the answer to ' + path + ' was not JSON');
  return data;
}

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const SLICE_MS = 12;
// A macrotask boundary (a resolved promise would not let the browser draw).
function yieldToBrowser() {
  return new Promise((resolve) => {
    const channel = new MessageChannel();
    channel.port1.onmessage = () => resolve();
    channel.port2.postMessage(null);
  });
}

// The company's events, resumed after a reconnect from the last id seen
// (Last-Event-ID). An id is "<epoch>-<n>"; a new epoch means the server
// restarted and its in-memory log began again: onEpoch() lets the page
// reload what it shows from the journal-backed endpoints.
export class EventStream {
  constructor({ onEvent, onBatch, onState, onMissed, onEpoch }) {
    this.onEvent = onEvent;
    this.onBatch = onBatch; // after each slice of events handed on
    this.onState = onState;
    this.onMissed = onMissed;
    this.onEpoch = onEpoch;
    this.lastId = '';
    this.epoch = '';
    this.stopped = true;
  }

  start() {
    if (!this.stopped) return;
    this.stopped = false;
    this.loop();
  }

  stop() {
    this.stopped = true;
    if (this.controller) this.controller.abort();
  }

  async loop() {
    let delay = 1000;
    while (!this.stopped) {
      this.controller = new AbortController();
      try {
        const h = headers({ Accept: 'text/event-stream' });
        if (this.lastId) h['Last-Event-ID'] = this.lastId;
        const res = await fetch('/events', { headers: h, signal: this.controller.signal, cache: 'no-store', credentials: 'omit' });
        if (res.status === 401) {
          this.stopped = true;
          this.onState('unauthorized');
          return;
        }
        if (!res.ok || !res.body) throw new Error('HTTP ' + res.status);
        this.onState('live');
        delay = 1000;
        await this.read(res.body);
      } catch {
        // a dropped connection: retried below
      }
      if (this.stopped) return;
      this.onState('retry');
      await sleep(delay);
      delay = Math.min(delay * 2, 15000);
    }
  }

  // Events come in chunks of any size: a reconnect replays the whole log
  // (up to 10,000 events) at once. They are handed on in slices of a few
  // milliseconds, yielding to the browser between slices, so that the page
  // never holds the main thread long while a backlog is read.
  async read(body) {
    const reader = body.pipeThrough(new TextDecoderStream()).getReader();
    let buffer = '';
    for (;;) {
      const { value, done } = await reader.read();
      if (done) return;
      buffer += value.includes('\r') ? value.replace(/\r\n?/g, '\n') : value;
      let start = 0;
      let end;
      let sliceStart = performance.now();
      while ((end = buffer.indexOf('\n\n', start)) >= 0) {
        this.dispatch(buffer.slice(start, end));
        start = end + 2;
        if (performance.now() - sliceStart > SLICE_MS) {
          if (this.onBatch) this.onBatch();
          await yieldToBrowser();
          if (this.stopped) return;
          sliceStart = performance.now();
        }
      }
      buffer = buffer.slice(start);
      if (this.onBatch) this.onBatch();
    }
  }

  dispatch(block) {
    let id = '';
    let name = 'message';
    const data = [];
    for (const line of block.split('\n')) {
      if (!line || line.startsWith(':')) continue;
      const colon = line.indexOf(':');
      const field = colon < 0 ? line : line.slice(0, colon);
      let value = colon < 0 ? '' : line.slice(colon + 1);
      if (value.startsWith(' ')) value = value.slice(1);
      if (field === 'id') id = value;
      else if (field === 'event') name = value;
      else if (field === 'data') data.push(value);
    }
    if (name === 'missed') return this.onMissed();
    if (!data.length) return;
    if (id) {
      const epoch = id.split('-')[0];
      if (this.epoch && epoch !== this.epoch) this.onEpoch();
      this.epoch = epoch;
      this.lastId = id;
    }
    let event;
    try {
      event = JSON.parse(data.join('\n'));
    } catch {
      return;
    }
    this.onEvent(event);
  }
}
