-- expect: unsafe column-type-change
-- doc: https://www.postgresql.org/docs/current/sql-altertable.html (SET DATA TYPE: indexes on the column are rebuilt unless reusable); indexcmds.c CheckIndexCompatible refuses to reuse an expression or partial index, so even a binary-coercible change rebuilds it
-- verified: PG15 and PG18: users heap kept its relfilenode, but users_email_lower_key got a new one (built under ACCESS EXCLUSIVE, scan of users); the same change with only a plain index on email rebuilds nothing
-- given: CREATE TABLE users (id bigint PRIMARY KEY, email varchar(100) NOT NULL);
-- given: CREATE UNIQUE INDEX users_email_lower_key ON users (lower(email));
-- Rails: change_column :users, :email, :string, limit: 255
ALTER TABLE "users" ALTER COLUMN "email" TYPE character varying(255);
