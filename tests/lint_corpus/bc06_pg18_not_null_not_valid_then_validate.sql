-- expect: safe
-- doc: https://www.postgresql.org/docs/18/sql-altertable.html (ADD table_constraint: "NOT NULL ... NOT VALID" allowed from PG 18; VALIDATE CONSTRAINT takes SHARE UPDATE EXCLUSIVE); PG 18 release notes (NOT NULL constraints can be NOT VALID)
-- verified: PG18: ADD CONSTRAINT ... NOT NULL ... NOT VALID did not scan (seq_scan unchanged); VALIDATE scanned once under ShareUpdateExclusiveLock; relfilenode unchanged. PG15 rejects this syntax (syntax error at NOT).
-- pg-version: 18
-- given: CREATE TABLE public.payments (id bigint PRIMARY KEY, merchant_id bigint, amount numeric(12,2));
ALTER TABLE public.payments ADD CONSTRAINT payments_merchant_id_not_null NOT NULL merchant_id NOT VALID;
ALTER TABLE public.payments VALIDATE CONSTRAINT payments_merchant_id_not_null;
