-- expect: safe
-- doc: https://www.postgresql.org/docs/current/sql-altertable.html (ADD CONSTRAINT ... NOT VALID; VALIDATE CONSTRAINT takes SHARE UPDATE EXCLUSIVE on the altered table); separate statements, no explicit transaction
-- verified: PG15 and PG16 servers (same result): no relfilenode changed (no rewrite); seq_scan rose on public.Books; locks held (whole file in one test transaction): Authors AccessShareLock, Authors RowShareLock, Authors ShareRowExclusiveLock, Authors_pkey AccessShareLock, Books AccessShareLock, Books ShareRowExclusiveLock, Books ShareUpdateExclusiveLock, Books_pkey AccessShareLock
-- given: CREATE TABLE "Authors" ("Id" bigint PRIMARY KEY, "Name" text);
-- given: CREATE TABLE "Books" ("Id" bigint PRIMARY KEY, "AuthorId" bigint, "Title" text);
ALTER TABLE "Books" ADD CONSTRAINT "FK_Books_Authors_AuthorId" FOREIGN KEY ("AuthorId") REFERENCES "Authors" ("Id") ON DELETE CASCADE NOT VALID;
ALTER TABLE "Books" VALIDATE CONSTRAINT "FK_Books_Authors_AuthorId";
