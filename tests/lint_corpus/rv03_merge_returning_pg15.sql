-- expect: unsafe rejected-by-server-version
-- doc: https://www.postgresql.org/docs/17/sql-merge.html (WHEN NOT MATCHED BY SOURCE, RETURNING: new in 17; https://www.postgresql.org/docs/16/sql-merge.html has neither)
-- pg-version: 15
-- verified: PG15: SQLSTATE 42601 syntax error at or near "RETURNING" (tests/integration/test_rejected_by_schema.py)
-- given: CREATE TABLE accounts (id bigint PRIMARY KEY, email text NOT NULL, balance int NOT NULL DEFAULT 0);
-- given: CREATE TABLE balances_import (id bigint PRIMARY KEY, balance int);
-- given: INSERT INTO accounts SELECT g, 'u' || g, 0 FROM generate_series(1, 1000) g;
-- given: INSERT INTO balances_import SELECT g, 7 FROM generate_series(1, 1000) g;
MERGE INTO accounts a USING balances_import b ON a.id = b.id AND b.id < 10
WHEN MATCHED THEN UPDATE SET balance = b.balance
RETURNING a.id;
