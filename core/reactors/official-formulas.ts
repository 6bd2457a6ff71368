/**
 * Official formulas: shipped with the vault, listed to every tenant (type `official`, read-only,
 * never stored). Documented in docs/reactors.md.
 */
import type { ReactorFormula } from './contract.ts';

const SHIPPED_AT = '2026-01-01T00:00:00.000Z';

const TOKENIZE_CODE = `// Tokenizes whatever it is given, as POST /tokenize would, as the reactor's application.
module.exports = async function (req) {
  return { tokenize: req.args };
};
`;

const HTTPS_REQUEST_CODE = `// Sends args.body as JSON to the configured HTTPS URL and returns the answer under raw.
const { BadRequestError } = require('@svc/reactor-errors');

module.exports = async function (req) {
  const { url, method } = req.configuration;
  if (!/^https:\\/\\//.test(url)) throw new BadRequestError({ url: 'must be an https URL' });
  const headers = Object.assign({ 'content-type': 'application/json' }, req.args.headers || {});
  const response = await fetch(url, {
    method,
    headers,
    body: method === 'GET' ? undefined : JSON.stringify(req.args.body === undefined ? {} : req.args.body),
  });
  const text = await response.text();
  let body;
  try {
    body = JSON.parse(text);
  } catch (e) {
    body = text;
  }
  return { raw: { status: response.status, body } };
};
`;

export const OFFICIAL_FORMULAS: readonly ReactorFormula[] = [
  {
    id: '0f6b1c2a-3d4e-4f50-8a61-7b8c9d0e1f01',
    name: 'Tokenize',
    description:
      'Tokenizes the (detokenized) args exactly as POST /tokenize would, as the reactor application.',
    type: 'official',
    status: 'verified',
    icon: null,
    code: TOKENIZE_CODE,
    configuration: [],
    request_parameters: [],
    created_by: null,
    created_at: SHIPPED_AT,
    modified_by: null,
    modified_at: null,
  },
  {
    id: '0f6b1c2a-3d4e-4f50-8a61-7b8c9d0e1f02',
    name: 'HTTPS JSON request',
    description:
      'Sends args.body (with args.headers) as JSON to the configured HTTPS URL through the vault ' +
      'outbound policy and returns {status, body} under raw.',
    type: 'official',
    status: 'verified',
    icon: null,
    code: HTTPS_REQUEST_CODE,
    configuration: [
      { name: 'url', description: 'Destination, https:// only', type: 'string' },
      { name: 'method', description: 'HTTP method, e.g. POST', type: 'string' },
    ],
    request_parameters: [],
    created_by: null,
    created_at: SHIPPED_AT,
    modified_by: null,
    modified_at: null,
  },
];

export function officialFormula(id: string): ReactorFormula | undefined {
  return OFFICIAL_FORMULAS.find((formula) => formula.id === id.toLowerCase());
}
