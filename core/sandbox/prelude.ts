/**
 * JavaScript evaluated inside every fresh QuickJS context before the formula: the `require`
 * allow-list (`@svc/reactor-errors`, a `crypto` subset, `uuid`), the global `fetch` shim, a silent
 * `console`, the `svc` client and the runner that calls the exported function and reports what
 * happened as one JSON text. It receives the host's functions as an argument and keeps them in a
 * closure, so nothing of the host is reachable from a global. The larger parts (the error classes,
 * `crypto`, `fetch`, the `svc` client, describing a throw) are PRELUDE_MODULES, compiled in the
 * run's context when first needed.
 *
 * The runner's report (what the host reads, see protocol.ts `SandboxReport`):
 *   {kind:'ok', output} | {kind:'not-a-function'} | {kind:'reactor-error', className, errors}
 *   | {kind:'custom-response', status, headers, body} | {kind:'thrown', name, reason}
 * Everything in it is untrusted: the host validates it again.
 */
export const REQUIRABLE_MODULES = ['@svc/reactor-errors', 'crypto', 'uuid'] as const;

/** Error classes and their fixed status and detail (the reactor error table). */
export const REACTOR_ERROR_CLASSES = {
  AuthenticationError: { status: 401, detail: 'Authentication Failed' },
  AuthorizationError: { status: 403, detail: 'Forbidden' },
  BadRequestError: { status: 400, detail: 'Bad Request' },
  InvalidPaymentMethodError: { status: 402, detail: 'Invalid Payment Method' },
  InvalidReactorConfigurationError: { status: 400, detail: 'Invalid Reactor Configuration' },
  InvalidReactorFormulaError: { status: 422, detail: 'Invalid Reactor Formula' },
  RateLimitError: { status: 429, detail: 'Rate Limit Exceeded' },
  ReactorRuntimeError: { status: 500, detail: 'Reactor Runtime Error' },
  ServiceUnavailableError: { status: 503, detail: 'Service Unavailable' },
} as const;

export type ReactorErrorClass = keyof typeof REACTOR_ERROR_CLASSES;

/** Text of the normalised `errors` entry when the thrower gave nothing usable. */
export const ERROR_FALLBACK = 'Something went wrong. Please try again later.';

/** Methods of the `svc` client object; each is one host call named `svc.<method>`. */
export const SVC_METHODS = [
  'tokens.create',
  'tokens.retrieve',
  'tokens.update',
  'tokens.delete',
  'tokens.list',
  'tokens.search',
  'tokenize',
] as const;
export type SvcMethod = (typeof SVC_METHODS)[number];

export const PRELUDE = `(function (host) {
  'use strict';
  const stringify = JSON.stringify;
  const parse = JSON.parse;
  // Captured now: modules load after the code ran, and it may have replaced Function.prototype.apply.
  const apply = Reflect.apply;
  const loaded = Object.create(null);
  function load(name, deps) {
    if (!(name in loaded)) loaded[name] = apply(host.load(name), undefined, deps);
    return loaded[name];
  }

  function hostError(e) {
    const error = new Error(e && typeof e.message === 'string' ? e.message : 'The host call failed');
    if (e && typeof e.name === 'string') error.name = e.name;
    if (e && typeof e.status === 'number') error.status = e.status;
    if (e && typeof e.code === 'string') error.code = e.code;
    if (e && e.errors && typeof e.errors === 'object') error.errors = e.errors;
    return error;
  }
  function call(target, args) {
    return host.call(target, stringify(args)).then(function (text) {
      return text === undefined ? undefined : parse(text);
    }, function (e) { throw hostError(e); });
  }

  // Both cases spelled out: QuickJS compiles a case-insensitive (/i) class by folding Unicode
  // ranges, which took most of the prelude's time on every fresh context.
  const UUID = /^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[1-8][0-9a-fA-F]{3}-[89abAB][0-9a-fA-F]{3}-[0-9a-fA-F]{12}$/;
  const uuidModule = Object.freeze({
    v4: function () { return host.uuid(); },
    validate: function (value) { return typeof value === 'string' && UUID.test(value); },
  });
  const MODULES = {
    '@svc/reactor-errors': function () { return load('errors', [stringify]).errorsModule; },
    crypto: function () { return load('crypto', [host]); },
    'node:crypto': function () { return load('crypto', [host]); },
    uuid: function () { return uuidModule; },
  };
  function require(name) {
    if (typeof name === 'string' && Object.prototype.hasOwnProperty.call(MODULES, name)) return MODULES[name]();
    throw new Error("Cannot find module '" + String(name) + "': only ${REQUIRABLE_MODULES.join(', ')} can be required");
  }

  const noop = function () {};
  globalThis.fetch = function fetch(input, init) {
    return load('fetch', [call, parse])(input, init);
  };
  globalThis.console = Object.freeze({ log: noop, info: noop, warn: noop, error: noop, debug: noop });

  function report(value) {
    try {
      return stringify(value);
    } catch (e) {
      return stringify({ kind: 'thrown', name: 'TypeError', reason: 'unserializable' });
    }
  }

  return async function run(factory, argsJson, configurationJson, hasSvc, checkOnly) {
    const module = { exports: {} };
    try {
      factory.call(undefined, module, module.exports, require);
    } catch (e) {
      return report(load('describe', [])(e, 'errors' in loaded ? loaded.errors : null));
    }
    const main = module.exports;
    if (typeof main !== 'function') return report({ kind: 'not-a-function' });
    if (checkOnly) return report({ kind: 'ok', output: null });
    const req = { args: parse(argsJson), configuration: parse(configurationJson), svc: hasSvc ? load('svc', [call])() : null };
    let result;
    try {
      result = await main(req);
    } catch (e) {
      return report(load('describe', [])(e, 'errors' in loaded ? loaded.errors : null));
    }
    return report({ kind: 'ok', output: result === undefined ? null : result });
  };
})`;

/**
 * Parts of the prelude compiled only when a run first needs them (`require` of the module, the
 * first `fetch` call, a `req.svc` to build, a throw to describe): compiling QuickJS source costs
 * time on every fresh context, and most runs need few of them. Each is a function expression the prelude calls with what it needs; the host
 * evaluates it in the run's own context (`host.load`). Like the prelude, they see the globals as
 * the code left them, which can only affect that code's own run: the host checks every report.
 */
export const PRELUDE_MODULES = {
  describe: `(function () {
  'use strict';
  return function describe(e, errors) {
    try {
      // Instances of the error classes exist only once the code required them.
      if (errors !== null && e instanceof errors.CustomHttpResponseError) {
        return { kind: 'custom-response', status: e.status, headers: e.headers, body: e.body };
      }
      if (errors !== null && e instanceof errors.SvcReactorError) {
        let className = 'ReactorRuntimeError';
        for (const pair of errors.classes) if (e instanceof pair[1]) className = pair[0];
        return { kind: 'reactor-error', className, errors: e.errors };
      }
      const name = e instanceof Error ? String(e.name) : typeof e;
      const message = e instanceof Error ? String(e.message) : '';
      let reason = 'error';
      if (name === 'InternalError' && message === 'out of memory') reason = 'memory';
      else if (name === 'InternalError' && message === 'interrupted') reason = 'interrupted';
      else if ((name === 'RangeError' || name === 'InternalError') && /stack/.test(message)) reason = 'stack';
      return { kind: 'thrown', name: name.slice(0, 100), reason };
    } catch (inner) {
      return { kind: 'thrown', name: 'Error', reason: 'error' };
    }
  };
})`,
  svc: `(function (call) {
  'use strict';
  const SVC_METHODS = ${JSON.stringify(SVC_METHODS)};
  function makeSvc() {
    const svc = { tokens: {} };
    for (const method of SVC_METHODS) {
      const path = method.split('.');
      const fn = function () { return call('svc.' + method, Array.prototype.slice.call(arguments)); };
      if (path.length === 2) svc.tokens[path[1]] = fn;
      else svc[path[0]] = fn;
    }
    Object.freeze(svc.tokens);
    return Object.freeze(svc);
  }
  return makeSvc;
})`,
  errors: `(function (stringify) {
  'use strict';
  const TABLE = ${JSON.stringify(REACTOR_ERROR_CLASSES)};
  const FALLBACK = ${JSON.stringify(ERROR_FALLBACK)};
  function safeStringify(value) {
    const seen = new WeakSet();
    return stringify(value, function (key, item) {
      if (typeof item === 'object' && item !== null) {
        if (seen.has(item)) return '[Circular]';
        seen.add(item);
      }
      return item;
    });
  }
  function itemText(item) {
    if (item === null || item === undefined || item === '') return FALLBACK;
    if (typeof item === 'object') return safeStringify(item);
    return String(item);
  }
  function normalizeErrors(arg) {
    if (typeof arg === 'string') return { error: [arg || FALLBACK] };
    if (Array.isArray(arg)) return { error: arg.length === 0 ? [FALLBACK] : arg.map(itemText) };
    if (arg instanceof Error) return { error: [arg.message || arg.name || FALLBACK] };
    if (arg && typeof arg === 'object') {
      // No prototype: a key named __proto__ is a field like any other.
      const out = Object.create(null);
      for (const key of Object.keys(arg)) {
        const value = arg[key];
        if (Array.isArray(value)) out[key] = value.length === 0 ? [FALLBACK] : value.map(itemText);
        else if (value && typeof value === 'object') out[key] = [safeStringify(value)];
        else out[key] = [value ? String(value) : FALLBACK];
      }
      return out;
    }
    return { error: [FALLBACK] };
  }

  class SvcReactorError extends Error {
    constructor(status, detail, errors) {
      super(detail);
      this.name = new.target.name;
      this.status = status;
      this.errors = normalizeErrors(errors);
    }
    toProblem() {
      return { detail: this.message, status: this.status, errors: this.errors };
    }
  }
  const errorsModule = { SvcReactorError };
  const classes = [];
  for (const name of Object.keys(TABLE)) {
    const entry = TABLE[name];
    const cls = { [name]: class extends SvcReactorError {
      constructor(errors) { super(entry.status, entry.detail, errors); }
    } }[name];
    errorsModule[name] = cls;
    classes.push([name, cls]);
  }
  class CustomHttpResponseError extends Error {
    constructor(options) {
      const { status, headers = {}, body = {} } = options || {};
      if (!Number.isInteger(status) || status < 100 || status > 599) {
        throw new TypeError('CustomHttpResponseError needs an integer status from 100 to 599');
      }
      super('Custom HTTP response');
      this.name = 'CustomHttpResponseError';
      this.status = status;
      this.headers = headers;
      this.body = body;
    }
  }
  errorsModule.CustomHttpResponseError = CustomHttpResponseError;
  Object.freeze(errorsModule);

  return { errorsModule, classes, SvcReactorError, CustomHttpResponseError };
})`,
  crypto: `(function (host) {
  'use strict';
  const HEX = '0123456789abcdef';
  const B64 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
  function base64(bytes) {
    let out = '';
    for (let i = 0; i < bytes.length; i += 3) {
      const n = (bytes[i] << 16) | ((bytes[i + 1] || 0) << 8) | (bytes[i + 2] || 0);
      out += B64[(n >> 18) & 63] + B64[(n >> 12) & 63];
      out += i + 1 < bytes.length ? B64[(n >> 6) & 63] : '=';
      out += i + 2 < bytes.length ? B64[n & 63] : '=';
    }
    return out;
  }
  function randomBytes(size) {
    const hex = host.randomHex(Number(size));
    const bytes = new Uint8Array(hex.length / 2);
    for (let i = 0; i < bytes.length; i += 1) bytes[i] = parseInt(hex.slice(2 * i, 2 * i + 2), 16);
    Object.defineProperty(bytes, 'toString', { value: function (encoding) {
      if (encoding === 'base64') return base64(bytes);
      let text = '';
      for (const b of bytes) text += HEX[b >> 4] + HEX[b & 15];
      return text;
    } });
    return bytes;
  }
  function digester(kind, algorithm, key) {
    const parts = [];
    return {
      update(data) { parts.push(String(data)); return this; },
      digest(encoding) {
        const data = parts.join('');
        return kind === 'hash'
          ? host.digest(String(algorithm), data, encoding === undefined ? 'hex' : String(encoding))
          : host.hmac(String(algorithm), String(key), data, encoding === undefined ? 'hex' : String(encoding));
      },
    };
  }
  const cryptoModule = Object.freeze({
    randomBytes,
    randomUUID: function () { return host.uuid(); },
    createHash: function (algorithm) { return digester('hash', algorithm); },
    createHmac: function (algorithm, key) { return digester('hmac', algorithm, key); },
  });
  return cryptoModule;
})`,
  fetch: `(function (call, parse) {
  'use strict';
  function headerBag(entries) {
    const map = new Map();
    for (const pair of entries) map.set(String(pair[0]).toLowerCase(), String(pair[1]));
    return {
      get(name) { const v = map.get(String(name).toLowerCase()); return v === undefined ? null : v; },
      has(name) { return map.has(String(name).toLowerCase()); },
      forEach(fn) { map.forEach(function (v, k) { fn(v, k); }); },
      entries() { return map.entries(); },
      [Symbol.iterator]() { return map.entries(); },
    };
  }
  function fetch(input, init) {
    const options = init || {};
    const url = String(input && typeof input === 'object' && 'url' in input ? input.url : input);
    const headers = [];
    const given = options.headers || {};
    if (typeof given.forEach === 'function' && !Array.isArray(given)) given.forEach(function (v, k) { headers.push([k, v]); });
    else if (Array.isArray(given)) for (const pair of given) headers.push([pair[0], pair[1]]);
    else for (const key of Object.keys(given)) headers.push([key, given[key]]);
    const request = {
      url,
      method: String(options.method || 'GET').toUpperCase(),
      headers: headers.map(function (p) { return [String(p[0]), String(p[1])]; }),
      body: options.body === undefined || options.body === null ? null : String(options.body),
    };
    return call('fetch', [request]).then(function (r) {
      return {
        ok: r.status >= 200 && r.status < 300,
        status: r.status,
        statusText: r.statusText,
        url: r.url,
        redirected: false,
        headers: headerBag(r.headers),
        text: function () { return Promise.resolve(r.body); },
        json: function () { return Promise.resolve().then(function () { return parse(r.body); }); },
      };
    });
  }
  return fetch;
})`,
} as const;

export type PreludeModule = keyof typeof PRELUDE_MODULES;

/** How the formula's CommonJS source is wrapped: the code starts on line 2. */
export const CODE_PREFIX = '(function (module, exports, require) {\n';
export const CODE_SUFFIX = '\n})';
export const CODE_LINE_OFFSET = 1;
