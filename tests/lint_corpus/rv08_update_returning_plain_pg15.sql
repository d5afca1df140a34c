-- expect: safe
-- doc: https://www.postgresql.org/docs/15/dml-returning.html (RETURNING of INSERT, UPDATE, DELETE: every version)
-- pg-version: 15
-- verified: PG15: accepted (tests/integration/test_rejected_by_schema.py)
-- given: CREATE TABLE accounts (id bigint PRIMARY KEY, email text NOT NULL, balance int NOT NULL DEFAULT 0);
-- given: CREATE TABLE balances_import (id bigint PRIMARY KEY, balance int);
-- given: INSERT INTO accounts SELECT g, 'u' || g, 0 FROM generate_series(1, 1000) g;
-- given: INSERT INTO balances_import SELECT g, 7 FROM generate_series(1, 1000) g;
UPDATE accounts SET balance = balance + 1 WHERE id = 5 RETURNING id, balance;
