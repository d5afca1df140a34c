-- expect: safe
-- doc: https://www.postgresql.org/docs/current/runtime-config-client.html (lock_timeout, statement_timeout: milliseconds if no unit); https://www.postgresql.org/docs/current/sql-set.html (SET LOCAL lasts until the end of the transaction)
-- verified: PG15: SHOW lock_timeout = 2s inside the block; both ADD COLUMNs catalog-only (relfilenode of payouts unchanged)
-- given: CREATE TABLE payouts (id bigserial PRIMARY KEY, merchant_id bigint NOT NULL, amount_cents bigint NOT NULL);
BEGIN;
SET LOCAL lock_timeout = 2000;
SET LOCAL statement_timeout = '45min';
ALTER TABLE payouts ADD COLUMN IF NOT EXISTS settled_at timestamptz;
ALTER TABLE payouts ADD COLUMN IF NOT EXISTS currency char(3) DEFAULT 'EUR';
COMMIT;
