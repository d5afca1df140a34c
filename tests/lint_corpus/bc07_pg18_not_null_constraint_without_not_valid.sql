-- expect: unsafe set-not-null
-- doc: https://www.postgresql.org/docs/18/sql-altertable.html (ADD table_constraint NOT NULL: like SET NOT NULL, existing rows are checked by a full scan under ACCESS EXCLUSIVE unless NOT VALID is given)
-- verified: PG18: seq_scan of payments +1, AccessExclusiveLock on payments; relfilenode unchanged
-- pg-version: 18
-- given: CREATE TABLE public.payments (id bigint PRIMARY KEY, merchant_id bigint, amount numeric(12,2));
ALTER TABLE public.payments ADD CONSTRAINT payments_merchant_id_not_null NOT NULL merchant_id;
