-- expect: safe
-- doc: https://www.postgresql.org/docs/15/sql-altertable.html (Notes); numeric_support: target typmod -1 (unconstrained numeric) needs no coercion
-- verified: ledger and ledger_amount_idx relfilenodes unchanged (index reused), no scan
-- given: CREATE TABLE ledger (id bigint PRIMARY KEY, amount numeric(12,2) NOT NULL);
-- given: CREATE INDEX CONCURRENTLY ledger_amount_idx ON ledger (amount);
ALTER TABLE ledger ALTER COLUMN amount TYPE numeric;
