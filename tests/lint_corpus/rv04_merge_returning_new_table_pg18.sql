-- expect: safe
-- doc: https://www.postgresql.org/docs/17/sql-merge.html (WHEN NOT MATCHED BY SOURCE, RETURNING: new in 17; https://www.postgresql.org/docs/16/sql-merge.html has neither)
-- pg-version: 18
-- verified: PG18: accepted (tests/integration/test_rejected_by_schema.py)
-- given: CREATE TABLE accounts (id bigint PRIMARY KEY, email text NOT NULL, balance int NOT NULL DEFAULT 0);
-- given: CREATE TABLE balances_import (id bigint PRIMARY KEY, balance int);
-- given: INSERT INTO accounts SELECT g, 'u' || g, 0 FROM generate_series(1, 1000) g;
-- given: INSERT INTO balances_import SELECT g, 7 FROM generate_series(1, 1000) g;
CREATE TABLE staged (id bigint PRIMARY KEY, balance int);
MERGE INTO staged s USING balances_import b ON s.id = b.id
WHEN NOT MATCHED THEN INSERT VALUES (b.id, b.balance)
RETURNING s.id;
