import t from 'tap';
import { sqlTokens } from '../../../src/verify/code/sql-tokens.js';

t.test('keywords upper case, names lower case unless quoted, aliases bound, comments dropped, lines counted', async (t) => {
  const { tokens, errors } = sqlTokens("select C.Name -- who\nFROM customers c\n/* many */ WHERE c.note <> 'it''s' AND \"Odd Col\" >= 1.5 AS total");
  t.equal(errors, 0);
  t.same(
    tokens.map((x) => x.text),
    ['SELECT', 'c', '.', 'name', 'FROM', 'customers', 'c', 'WHERE', 'c', '.', 'note', '<>', "'it''s'", 'AND', 'Odd Col', '>=', '1.5', 'AS', 'total'],
  );
  t.same(
    tokens.filter((x) => x.bound).map((x) => x.text),
    ['c', 'total'],
    'FROM customers c and AS total bind; c.note does not',
  );
  t.same(
    tokens.map((x) => x.line),
    [1, 1, 1, 1, 2, 2, 2, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3],
  );
  t.equal(sqlTokens("SELECT 'open").errors, 1, 'a quote left open is an error');
});
