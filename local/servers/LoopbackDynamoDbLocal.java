// DynamoDB Local as the local runtime and the tests run it: listening on 127.0.0.1 only, and gone
// with the process that started it. DynamoDB Local has no option for either: it binds its Jetty
// server to every interface, and outlives a parent killed with SIGKILL. This launcher builds the
// server the way DynamoDB Local's own main does (same command-line options, telemetry never set
// up), binds its connector to loopback before starting it, and exits when its standard input
// closes, which happens when the parent process ends, however it ends.
//
// local/servers/local-servers.ts compiles it once (`--compile <this file> <directory>`, in Java's
// source-file mode) and starts the compiled class beside DynamoDBLocal.jar.
import java.io.IOException;
import java.lang.reflect.Field;
import java.util.List;
import javax.tools.ToolProvider;
import org.eclipse.jetty.server.Connector;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import software.amazon.dynamodb.services.local.main.ServerRunner;
import software.amazon.dynamodb.services.local.server.DynamoDBProxyServer;

public class LoopbackDynamoDbLocal {
  private static final String LOOPBACK = "127.0.0.1";

  public static void main(String[] args) throws Exception {
    if (args.length == 3 && args[0].equals("--compile")) {
      compile(args[1], args[2]);
      return;
    }
    DynamoDBProxyServer proxy = ServerRunner.createServerFromCommandLineArgs(args);
    // DynamoDBProxyServer keeps its Jetty server private and creates it listening on every interface.
    Field field = DynamoDBProxyServer.class.getDeclaredField("server");
    field.setAccessible(true);
    for (Connector connector : ((Server) field.get(proxy)).getConnectors()) {
      ((ServerConnector) connector).setHost(LOOPBACK);
    }
    exitWhenStandardInputCloses();
    proxy.start();
  }

  private static void exitWhenStandardInputCloses() {
    Thread watcher = new Thread(() -> {
      try {
        while (System.in.read() != -1) {
          // The parent never writes: it only holds the pipe open while it lives.
        }
      } catch (IOException closed) {
        // A broken pipe is a gone parent too.
      }
      System.exit(0);
    }, "parent-watch");
    watcher.setDaemon(true);
    watcher.start();
  }

  private static void compile(String source, String directory) {
    var compiler = ToolProvider.getSystemJavaCompiler();
    if (compiler == null) throw new IllegalStateException("This Java has no compiler module (jdk.compiler)");
    List<String> options = List.of("-d", directory, "-cp", System.getProperty("java.class.path"), "-nowarn", source);
    int status = compiler.run(null, null, null, options.toArray(new String[0]));
    if (status != 0) System.exit(status);
  }
}
