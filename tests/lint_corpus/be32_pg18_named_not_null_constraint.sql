-- expect: unsafe set-not-null
-- pg-version: 18
-- doc: https://www.postgresql.org/docs/18/sql-altertable.html (ADD CONSTRAINT name NOT NULL col: same scan under ACCESS EXCLUSIVE as SET NOT NULL)
-- verified: PG18: seq_scan +1 on subscriptions; PG16 refuses the syntax
-- given: CREATE TABLE subscriptions (id bigint PRIMARY KEY, plan_code text);
ALTER TABLE subscriptions ADD CONSTRAINT subscriptions_plan_code_nn NOT NULL plan_code;
