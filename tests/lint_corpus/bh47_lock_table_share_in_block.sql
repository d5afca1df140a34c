-- expect: unsafe lock-table
-- doc: https://www.postgresql.org/docs/current/sql-lock.html (held until the transaction ends; SHARE blocks writes)
-- verified: PG15: ShareLock on ledger held through the block
-- given: CREATE TABLE ledger (id bigint PRIMARY KEY, account_id bigint NOT NULL, amount_cents bigint NOT NULL);
-- given: CREATE TABLE balances (account_id bigint PRIMARY KEY, cents bigint NOT NULL);
BEGIN;
LOCK TABLE ledger IN SHARE MODE;
INSERT INTO balances (account_id, cents)
  SELECT account_id, sum(amount_cents) FROM ledger WHERE account_id < 1000 GROUP BY account_id
  ON CONFLICT (account_id) DO UPDATE SET cents = EXCLUDED.cents;
COMMIT;
