-- expect: safe
-- doc: https://www.postgresql.org/docs/current/sql-altertype.html (PG 12+: ADD VALUE may run inside a transaction block; the value is only unusable until commit); PG 11 and older refused it in a DO block (PreventInTransactionBlock in typecmds.c AlterEnum)
-- verified: PG15: the DO block succeeds on first run and again on a second run (duplicate_object caught); no later statement uses the new value; no table relfilenode changed
-- pg-version: 16
-- given: CREATE TYPE payment_method AS ENUM ('card', 'sepa');
-- given: CREATE TABLE payments (id bigint PRIMARY KEY, method payment_method NOT NULL, amount_cents bigint NOT NULL);
-- Idempotent enum extension (hand-written, re-runnable).
DO $$
BEGIN
    ALTER TYPE payment_method ADD VALUE 'paypal';
EXCEPTION
    WHEN duplicate_object THEN NULL;
END
$$;
COMMENT ON TYPE payment_method IS 'card | sepa | paypal';
