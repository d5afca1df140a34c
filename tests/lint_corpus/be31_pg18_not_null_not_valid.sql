-- expect: safe
-- pg-version: 18
-- doc: https://www.postgresql.org/docs/18/sql-altertable.html (ADD table_constraint: NOT NULL constraints can be NOT VALID from 18; VALIDATE CONSTRAINT takes SHARE UPDATE EXCLUSIVE)
-- verified: PG18: ADD ... NOT VALID no scan; separate VALIDATE scanned under ShareUpdateExclusiveLock; attnotnull true afterwards
-- given: CREATE TABLE subscriptions (id bigint PRIMARY KEY, plan_code text);
ALTER TABLE subscriptions ADD CONSTRAINT subscriptions_plan_code_nn NOT NULL plan_code NOT VALID;
ALTER TABLE subscriptions VALIDATE CONSTRAINT subscriptions_plan_code_nn;
