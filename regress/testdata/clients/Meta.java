// Drives the server with pgjdbc (Debian's libpostgresql-jdbc-java):
// DatabaseMetaData as IDEs and ORMs call it, and a prepared statement.
import java.sql.*;

public class Meta {
  public static void main(String[] args) throws Exception {
    String url = "jdbc:postgresql://" + args[0] + ":" + args[1] + "/postgres";
    try (Connection c = DriverManager.getConnection(url, "postgres", "")) {
      try (Statement s = c.createStatement()) {
        s.execute("CREATE TABLE jt (id int PRIMARY KEY, name text NOT NULL, tags text[])");
        s.execute("CREATE INDEX jt_name ON jt (name)");
        s.execute("INSERT INTO jt VALUES (1, 'one', '{a,b}')");
        s.execute("CREATE TABLE jchild (id int PRIMARY KEY, jt_id int REFERENCES jt (id))");
      }
      DatabaseMetaData m = c.getMetaData();
      System.out.println("product " + m.getDatabaseProductName());
      try (ResultSet rs = m.getTables(null, "public", "%", new String[] {"TABLE"})) {
        while (rs.next()) System.out.println("table " + rs.getString("TABLE_NAME"));
      }
      try (ResultSet rs = m.getColumns(null, "public", "jt", "%")) {
        while (rs.next())
          System.out.println("column " + rs.getString("COLUMN_NAME") + " " + rs.getString("TYPE_NAME") + " " + rs.getInt("DATA_TYPE") + " " + rs.getString("IS_NULLABLE"));
      }
      try (ResultSet rs = m.getPrimaryKeys(null, "public", "jt")) {
        while (rs.next()) System.out.println("pk " + rs.getString("COLUMN_NAME") + " " + rs.getInt("KEY_SEQ") + " " + rs.getString("PK_NAME"));
      }
      try (ResultSet rs = m.getIndexInfo(null, "public", "jt", false, false)) {
        while (rs.next()) System.out.println("index " + rs.getString("INDEX_NAME") + " " + rs.getString("COLUMN_NAME") + " unique=" + !rs.getBoolean("NON_UNIQUE"));
      }
      try (ResultSet rs = m.getImportedKeys(null, "public", "jchild")) {
        while (rs.next()) System.out.println("fk " + rs.getString("FKCOLUMN_NAME") + " -> " + rs.getString("PKTABLE_NAME") + "." + rs.getString("PKCOLUMN_NAME"));
      }
      try (ResultSet rs = m.getSchemas()) {
        while (rs.next()) System.out.println("schema " + rs.getString(1));
      }
      try (PreparedStatement ps = c.prepareStatement("SELECT name, tags FROM jt WHERE id = ?")) {
        ps.setInt(1, 1);
        try (ResultSet rs = ps.executeQuery()) {
          while (rs.next()) System.out.println("row " + rs.getString(1) + " " + rs.getArray(2));
        }
      }
    }
  }
}
