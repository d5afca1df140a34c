-- expect: safe
-- doc: https://www.postgresql.org/docs/current/sql-altertable.html (Notes: binary coercible); utils/adt/numeric.c numeric_support: same scale and larger precision is a no-op length coercion
-- verified: PG15 and PG16 servers (same result): no relfilenode changed (no rewrite); seq_scan unchanged on every table (no scan); locks held (whole file in one test transaction): ledger_lines AccessExclusiveLock, ledger_lines ShareLock, ledger_lines_amount_idx AccessExclusiveLock
-- given: CREATE TABLE ledger_lines (id bigint PRIMARY KEY, amount numeric(10,2) NOT NULL, memo text);
-- given: CREATE INDEX ledger_lines_amount_idx ON ledger_lines (amount);
-- Alembic: op.alter_column('ledger_lines', 'amount', type_=sa.Numeric(18, 2), existing_nullable=False)
ALTER TABLE ledger_lines ALTER COLUMN amount TYPE NUMERIC(18, 2);
