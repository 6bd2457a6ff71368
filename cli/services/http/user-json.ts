/**
 * A request body that carries what the user wrote as JSON (a token's merge patch, a line of
 * `svc token import`) goes to the server as it was written: the server's schema and core judge it,
 * and refuse it with the same field errors in either mode. Its generated type says what the server
 * accepts, which only the server can tell of such a value; this is the one place the CLI hands one
 * over without the compiler's check, and the commands that build bodies from flags never use it.
 */
export function asWritten<Body>(json: object): Body {
  return json as Body;
}
